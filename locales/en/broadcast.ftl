## Announcements for subscribers

button-unsubscribe = 🔕 Stop announcements
unsubscribed = You will get no more announcements. Send /start to get them again.
plans-title = Our { $service } plans
plans-footer = Send /topup to renew your package.

## Admin broadcasts

not-allowed = Sorry, this command is for administrators only.
command-broadcast = Send an announcement to subscribers
command-plans = Announce the plans of a customer's connection
command-broadcast_cancel = Stop the broadcast under way
command-reminder_stats = Reminders sent, renewals after them
broadcast-ask-message = Send the message to broadcast: text (with formatting) or a photo with a caption. /cancel to stop.
broadcast-ask-audience = Who should receive it?
audience-everyone = Everyone
audience-english = English speakers
audience-nepali = Nepali speakers
audience-tv = TV customers
audience-internet = Internet customers
audience-iptv = IPTV customers
broadcast-audience-empty = Nobody is in { $audience } yet, so there is no one to send it to. Choose another audience, or /cancel.
broadcast-confirm =
    Above is the preview, exactly as recipients will see it, who also get a “🔕 Stop announcements” button under it. { $count ->
        [one] Send it to { $count } subscriber ({ $audience })?
       *[other] Send it to { $count } subscribers ({ $audience })?
    }
button-send = ✅ Send
broadcast-not-sent = Not sent.
broadcast-progress = Sending… { $sent } sent, { $failed } failed, { $blocked } blocked, { $remaining } remaining of { $total }.
broadcast-done = Broadcast finished: { $sent } sent, { $failed } failed, { $blocked } blocked the bot, of { $total }.
broadcast-cancelled = Broadcast cancelled: { $sent } sent, { $failed } failed, { $blocked } blocked the bot, { $remaining } not sent, of { $total }.
broadcast-cancelling = Stopping the broadcast… the final report follows.
broadcast-none-running = No broadcast is running.
plans-usage = Send /plans followed by the code of a reference customer, e.g. /plans 1000001.
plans-not-found = No customer found for that code.
