## Welcome, help, language

welcome =
    Welcome! I help you renew your TV, internet and IPTV packages in a minute.
    Tap the button below or send /topup to start. /help shows everything I can do.
button-start-topup = Top up now
button-start-again = 🔄 Start again
start-forwarded-invoice = This invoice was sent to someone else: only the person who started a purchase can pay its invoice, and nothing was charged. To renew a package yourself, tap the button below or send /topup.
help =
    /topup – renew a package: give a mobile number, customer ID, set-top-box number or internet username
    /topup 1000001 – the same, with the code right away
    /history – your last top-ups and how they ended
    /forget – forget your saved connections and the phone number you shared
    /reminders – your expiry reminders, to cancel them
    /cancel – leave the current step at any time
    /language – choose your language
    /stop – no more announcements from us (/start turns them on again)
    /help – this message
language-choose = Choose your language:
language-set = Language set to English.

command-start = Welcome and what I can do
command-topup = Renew a package
command-cancel = Leave the current step
command-help = How to use this bot
command-language = Choose your language

## Step 1: who to top up

ask-code =
    Whose package shall we renew? Send the mobile number, customer ID, set-top-box number or internet username.
    Or tap “Share my phone number” below.
share-phone-button = 📱 Share my phone number
# Under ask-code when there is a shop (the Mini App): what is kept of a shared number.
ask-code-shop = Your number is then kept for the shop, which lists your own connections; /forget forgets it.
code-placeholder = Mobile number, customer ID, STB or username
code-invalid = That does not look like a mobile number, customer ID, set-top-box number or username. Please check it and send it again.
contact-not-own = Please share your own phone number with the button, or type the number.
customer-not-found = No customer found for <code>{ $code }</code>. Check it and send another code, or /cancel.
hint-send-code = Please send a mobile number, customer ID, set-top-box number or username as text, or /cancel.
no-connections = This customer has no connection that can be renewed. Send /topup to top up another customer, or contact support.

## Step 2: which connection

customer-card = <b>{ $name }</b> · customer { $cuid } ({ $status })
customer-card-masked = <b>{ $name }</b> ({ $status })
masked-note = <i>Found by a code, so names and numbers are partly hidden and end dates are not shown. Send /topup and share your own phone number to see all of your own.</i>
connection-label = { $service } { $id } · { $status }
service-tv = TV
service-internet = Internet
service-iptv = IPTV
status-active = active
status-inactive = inactive
choose-connection = Which connection do you want to renew?
choose-connection-paged = Which connection do you want to renew? (page { $page } of { $pages })
inactive-can-renew = Inactive connections can be renewed too: a top-up reactivates them.
hint-use-buttons = Please tap one of the buttons above, or /cancel.

## Step 3: what to buy

subscriptions-title = Current subscriptions
subscriptions-none = No current subscriptions.
subscription-line = • { $name } – until { $end }, { $relative }
subscription-line-date = • { $name } – until { $end }
subscription-line-name = • { $name }
expires-in =
    { $days ->
        [one] expires in { $days } day
       *[other] expires in { $days } days
    }
expired-ago =
    { $days ->
        [one] expired { $days } day ago
       *[other] expired { $days } days ago
    }
ends-today = ends today
choose-package = Choose a package to buy:
renew-button = 🔁 Renew { $name } ({ $billing }) · { $price }
bouquet-button = { $name } ({ $billing }) · { $price }
filter-monthly = Monthly
filter-quarterly = Quarterly
filter-half-yearly = Half-yearly
filter-yearly = Yearly
filter-addon = Add-ons
filter-other = Other
list-title = <b>{ $filter }</b> packages
list-title-paged = <b>{ $filter }</b> packages · page { $page } of { $pages }
page-indicator = { $page }/{ $pages }
button-prev = ‹ Prev
button-next = Next ›
button-back = Back
button-cancel = Cancel

## Step 4: confirm

confirm-title = Please confirm your top-up
confirm-summary =
    Customer: { $customer }
    Connection: { $connection }
    Package: { $bouquet }
    Period: { $period }
    Price: <b>{ $price }</b>
period-monthly = monthly
period-quarterly = quarterly
period-half-yearly = half-yearly
period-yearly = yearly
period-addon = add-on
period-addon-of = add-on, { $period }
period-other = one-off
button-confirm = ✅ Confirm and pay
price-changed = ⚠️ The price of this package has changed from { $old } to <b>{ $new }</b>. Please confirm again.
package-changed = ⚠️ This package has changed. Please check it and confirm again.
bouquet-gone = ⚠️ That package is no longer offered. Here is what is available now.

## Step 5 and 6: paying and the outcome

processing = Processing…
processing-topup = Processing your top-up…
purchase-balance-stop = ⛔ This package cannot be bought right now. Nothing was charged; please try again later.
checking-topup = ⏳ The provider has not confirmed the top-up yet. Checking it…
receipt =
    ✅ <b>Top-up successful</b>
    Transaction: <code>{ $txnId }</code>
    Package: { $bouquet } ({ $period })
    Amount: <b>{ $amount }</b>
receipt-date = Date: { $date }
receipt-renewed-until = Renewed until: <b>{ $date }</b>
receipt-renewed = Your package is renewed.
receipt-connection = Connection: { $connection }
button-another = Top up another
button-done = Done
done-bye = Thank you! Send /topup whenever you need another top-up.
not-charged = We could not complete your top-up. <b>Nothing was charged.</b> You can try again.
button-retry = Try again
still-checking = We could not reach the provider to confirm your top-up yet. Your payment is safe: we will message you here as soon as we know. Please do not pay again in the meantime.
still-checking-topup = We could not reach the provider to confirm this top-up yet. We will message you here as soon as we know. Please do not top it up again in the meantime.
purchase-rejected = The provider declined this top-up. Nothing was charged. If you contact support, please mention code <code>{ $code }</code>.
purchase-busy = Another top-up is still being processed in this chat. Please wait for its result.
lookup-limited = Too many attempts to find a customer. Please try again at { $time }.
provider-unavailable = Sorry, the provider's service is not available right now. Nothing was charged. Please try again in a few minutes.
topups-paused = Top-ups are paused for now: the provider is not accepting our requests. Our team has been told. Nothing was charged.
topups-paused-paid = ⏸ Top-ups are paused for now: the provider is not accepting our requests, and our team has been told. Your payment is safe: we will top up as soon as they resume, or refund you if we cannot. Please do not pay again.
purchase-interrupted = Sorry, your top-up could not be sent because of a problem on our side. <b>Nothing was charged.</b> Please try again.
topup-agents-only = Sorry, top-ups in this bot are for the provider's registered agents. Please ask your agent or the provider to renew your package.
store-unavailable = Sorry, the bot is temporarily unavailable. Nothing was charged. Please try again in a moment.

## Everywhere

cancelled = Cancelled. Send /topup to start again.
cancelled-broadcast = Broadcast cancelled: nothing was sent. Send /broadcast to start again.
nothing-to-cancel = There is nothing to cancel. Send /topup to start a top-up.
menu-expired = This menu has expired.
session-expired = This session has expired. Send /topup to start again.
hint-start = Send /topup to renew a package, or /help to see what I can do.
hint-unknown-command = I don't know that command. /help lists what I can do.
list-more = …and { $count } more
error-generic = Sorry, something went wrong on our side. Please try again, or send /cancel and start over.

## /history

history-title =
    { $count ->
        [one] Your last top-up
       *[other] Your last { $count } top-ups
    }
history-line =
    { $outcome } · { $date }
    { $connection } · { $bouquet } · { $amount }
    Transaction: { $txnId }
history-payment = Payment: { $method }
history-payment-paid = Payment: { $method } · reference { $reference }
history-charged = ✅ Done
history-checking = ⏳ Still checking
history-not-charged = ↩️ Not charged
history-declined = ❌ Declined, not charged
history-none = You have no top-ups through this bot yet. Send /topup to make one.
history-awaiting-payment = 💳 Not paid yet
history-refund-due = 💸 Paid, not topped up: refund due
history-refunded = 💸 Refunded
command-history = Your last top-ups

## Saved connections

saved-title = Top up one of your connections again, or send a number for another customer:
saved-button = { $name } · { $connection }
saved-someone-else = ➕ Another customer
saved-someone-else-hint = Send the mobile number, customer ID, set-top-box number or username.
saved-forget = 🗑 Forget these
saved-forgotten = Done: no connections are remembered for you now, nor the phone number you shared. Connections are saved again after your next top-up, your number when you share it again.
command-forget = Forget my saved connections and number

## Expiry reminders

remind-button = 🔔 Remind me: { $name }
remind-receipt-button = 🔔 Remind me before it ends
reminder-set = 🔔 We will remind you on { $dates }.
reminder-too-late = It ends too soon for a reminder.
reminder-too-many = You can have at most { $count } reminders waiting. Cancel some with /reminders first.
reminder-no-date = The provider gives no end date for it, so there is nothing to remind you of.
reminder-text = 🔔 Your package <b>{ $bouquet }</b> ({ $connection }) ends on { $end }. Renew it now to stay connected.
reminder-renew-button = 🔁 Renew { $bouquet }
reminders-title = Your reminders:
reminders-line = • { $bouquet } ({ $connection }) – { $at }
reminders-none = You have no reminders. Tap “🔔 Remind me” beside a subscription or under a receipt to get one.
reminders-cancel-button = ✖ { $bouquet } – { $at }
reminders-cancel-all = ✖ Cancel all
reminders-cancelled = Reminder cancelled.
reminders-all-cancelled = All your reminders are cancelled.
command-reminders = Your expiry reminders
reminder-stats = Expiry reminders sent: { $sent }. Top-ups made from a reminder’s Renew button: { $renewals }.
# The Mini App's button under /start and the saved connections, and the chat's menu button.
button-open-shop = 🛒 Open the shop
menu-button-shop = Shop
# Under a receipt: the Mini App on that connection's packages.
button-renew-in-shop = 🛒 Renew in the shop
