# Paying in the bot (PAYMENT_METHODS) and refunds.

button-pay = 💳 Pay { $price }
invoice-description = { $bouquet } ({ $period }) for { $connection }: { $price }. The top-up is made as soon as the payment is confirmed.
invoice-sent = { $method ->
    [khalti] Pay with the Khalti link below.
    [esewa] Pay with the eSewa link below.
    [fonepay] Scan the Fonepay QR below with your bank's or wallet's app.
   *[other] Pay with the invoice below.
} The top-up is made as soon as your payment is confirmed.

# Several methods (PAYMENT_METHODS): one button each on the confirm screen, in the configured order.
pay-method-telegram = 💳 Pay by card
pay-method-khalti = 📱 Pay with Khalti
pay-method-esewa = 🟢 Pay with eSewa
pay-method-fonepay = 🔳 Pay with Fonepay QR
# Under the summary once one method's offer is out: the others, until it is paid or ends.
pay-instead-telegram = 💳 Pay by card instead
pay-instead-khalti = 📱 Pay with Khalti instead
pay-instead-esewa = 🟢 Pay with eSewa instead
pay-instead-fonepay = 🔳 Pay with Fonepay QR instead
# A paid invoice keeps only the button Telegram requires first; behind it, the receipt.
button-receipt = 🧾 Receipt
# A Khalti or eSewa link withdrawn (another way chosen, cancelled, ended): its buttons gone.
link-withdrawn = This { $method ->
    [esewa] eSewa
   *[other] Khalti
} payment link is withdrawn and can no longer be used here. If it was paid anyway, the payment is not lost: we top up or refund it.

payment-unpayable = This price cannot be paid in the bot. Nothing was charged. Please contact support.
payment-unavailable = Sorry, the payment could not be prepared right now. Nothing was charged. Please try again in a moment.
invoice-cancelled = Payment cancelled. Nothing was charged. If a payment page left open is paid anyway, the payment is not lost: we top up or refund it.
invoice-expired = The invoice was not paid in time. <b>Nothing was charged.</b> Send /topup to start again. If a payment page left open is paid anyway, the payment is not lost: we top up or refund it.
invoice-failed = ❌ The payment failed at { $method ->
    [khalti] Khalti
    [esewa] eSewa
   *[other] the payment system
}. <b>Nothing was charged.</b> Send /topup to try again.
invoice-refunded-outside = ↩️ { $method ->
    [khalti] Khalti
    [esewa] eSewa
   *[other] The payment system
} says your payment for this purchase was given back to you, so nothing was topped up. Send /topup to start again.
payment-received = ✅ Payment received. Topping up now…
payment-late = ✅ Your payment of { $amount } for { $bouquet } arrived after the purchase { $reason ->
    [cancelled] was cancelled
   *[other] had ended
}. It still counts: we are topping it up now, and the receipt follows here (or, if the top-up cannot be made, a refund).
payment-processing = ✅ Payment received. It is being processed: you will get a message here as soon as the top-up is made. You do not need to pay again.
payment-set-aside-told = ⚠️ We got word of your payment, but it could not be checked automatically. <b>Our staff are checking it</b> and will contact you here. Please do not pay again.

payment-refused-unknown-payment = This invoice is not known to the bot. Nothing was charged.
payment-refused-not-buyer = This invoice belongs to someone else's purchase: only the person who started it can pay it. Nothing was charged. To top up yourself, send /topup to the bot.
payment-refused-amount-differs = The amount does not match this purchase. Nothing was charged.
payment-refused-payment-expired = This invoice has expired. Nothing was charged; send /topup to start again.
payment-refused-payment-closing = The time to pay this invoice is running out, too close to its end to take a payment. Nothing was charged; send /topup to start again.
payment-refused-payment-cancelled = This invoice was cancelled. Nothing was charged.
payment-refused-already-paid = This purchase is already paid. Nothing was charged again.
payment-refused-topups-paused = Top-ups are paused for a moment. Nothing was charged; please try again later.
payment-refused-ledger-unavailable = The bot is temporarily unavailable. Nothing was charged; please try again in a moment.

receipt-payment = Paid: { $amount } { $method ->
    [khalti] with Khalti
    [esewa] with eSewa
    [fonepay] with Fonepay QR
   *[other] by card
} (reference <code>{ $reference }</code>)
refund-why-declined = The provider declined the top-up.
refund-why-offer-changed = The package or its price changed before the top-up.
refund-why-unavailable = The top-up could not be made in time.
refund-due-told = { $why } <b>Your payment of { $amount } will be refunded</b> (reference <code>{ $reference }</code>). Support has been told; you will get a message when it is done.
refunded-told = 💸 Your payment of { $amount } (reference <code>{ $reference }</code>) was refunded. It may take a few days to show on your statement.
stray-payment-owed = We received a payment of { $amount } that does not pay for a top-up (it was paid twice, or after the purchase ended). <b>It will be refunded</b> (reference <code>{ $providerCharge }</code>).
stray-payment-not-buyer = We received your payment of { $amount } for an invoice of someone else's purchase: only the person who started a purchase can pay its invoice. <b>It will be refunded</b> (reference <code>{ $providerCharge }</code>). To top up a package yourself, send /topup.
stray-payment-refunded = 💸 Your payment of { $amount } (reference <code>{ $providerCharge }</code>) was refunded.
stray-payment-part-refunded = { $method ->
    [khalti] Khalti
    [esewa] eSewa
   *[other] The payment system
} says part of your payment of { $amount } was given back to you before it paid for your top-up. A payment in part does not pay for a top-up, so nothing was topped up: <b>the rest will be refunded</b> (reference <code>{ $providerCharge }</code>). You will get a message when it is done.
part-refunded-rest-refunded = 💸 The rest of your payment of { $amount } (reference <code>{ $providerCharge }</code>) was refunded.

refund-due-alert = 💸 <b>Refund due</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }.
    { $method ->
        [esewa] eSewa transaction_uuid: <code>{ $charge }</code>
        eSewa reference (ref_id): <code>{ $providerCharge }</code>
        eSewa has no refund API: refund it from the eSewa merchant portal (or through eSewa's support), then send /refunded { $purchase }
        [fonepay] Fonepay prn: <code>{ $charge }</code>
        Fonepay trace id: <code>{ $providerCharge }</code>
        Fonepay has no refund API: refund it through the acquiring bank (or Fonepay's merchant portal) by the trace id, then send /refunded { $purchase }
       *[other] Telegram charge: <code>{ $charge }</code>
        Provider charge: <code>{ $providerCharge }</code>
        Refund it with your payment provider, then send /refunded { $purchase }
    }
refunds-none = No refunds are due.
refunds-title = 💸 Refunds due: { $count }
refunds-line = <code>{ $purchase }</code>: { $amount }, buyer { $buyer }, due for { $hours } h
    { $paidWith } · { $reference }
refunds-more = …and { $count } more.
refunds-part-refunded = Part of it was given back outside the bot before it paid for anything ({ $method } does not say how much): refund the rest.
refunds-by-hand = Left to a person: { $why ->
    [needs-mobile] Khalti needs the payer's mobile number for a bank-paid refund. Ask the payer, or refund it from Khalti's dashboard.
    [refused] the payment system refused the refund. Check it in its dashboard.
   *[other] the payment system did not answer the refund. Check it in its dashboard.
}
refunds-sent-unknown = A refund was sent to { $paidWith } and its answer was lost: the bot is finding out from { $paidWith }'s own records whether it was made. Do not refund it by hand meanwhile.
refunds-how = Refund each with its payment system, then send /refunded &lt;any reference shown: purchase id, charge or transaction&gt; [note].
refunds-automatic-title = 🤖 Being refunded automatically — do not refund by hand: { $count }
    The bot is refunding these through the payment system's API. Should it fail, it hands them to a person: they then move to the list above, and the operators are alerted.
refunded-usage = Send /refunded &lt;a reference /refunds shows: purchase id, charge or transaction&gt; [note] once the payment is refunded with its payment system.
refunded-recorded = Recorded: purchase <code>{ $purchase }</code> refunded. The buyer has been told.
refunded-nothing-due = No refund is due and no payment is set aside for <code>{ $key }</code> (unknown, or settled before).
refunded-automatic = Nothing recorded: purchase <code>{ $purchase }</code> is being refunded automatically through { $paidWith }. Do not refund it by hand (the buyer would be paid twice). If the bot cannot make it, it hands it to a person: the operators are alerted and /refunds lists it to refund by hand.
refunded-ambiguous = <code>{ $key }</code> names more than one refund or payment set aside; nothing was recorded. Send /refunded again with one of these:
    { $matches }
set-aside-title = ⚠️ Payments set aside, to check by hand: { $count }
set-aside-line = <code>{ $charge }</code> ({ $method }): amount stated { $amount } ({ $currency }, minor units), purchase <code>{ $purchase }</code>, buyer { $buyer }, set aside { $hours } h ago
    Why: { $reason }
unsettled-line = <code>{ $charge }</code> ({ $method }): still unsettled at the payment system after it could no longer be paid, { $amount } ({ $currency }, minor units) asked, purchase <code>{ $purchase }</code>, buyer { $buyer }, raised { $hours } h ago
    Why: { $reason }. The bot keeps asking, and closes it by itself when the payment system settles it.
set-aside-how = The bot could not record the payments set aside as they came and does nothing more with them. Check each with its payment system, settle it by hand (refund it, or top up), then send /refunded &lt;charge id&gt; [note] to close it.
set-aside-closed = Closed: the payment set aside <code>{ $charge }</code> is settled.
outcome-unknown-alert = ⚠️ <b>Paid top-up still unknown</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. The provider has not said whether it was topped up; the bot keeps asking with txn-status and refunds nothing until it knows. Check it with /txn if it lasts.
    Telegram charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>
buyer-unreachable-alert = 🚫 <b>A buyer cannot be messaged</b> (they blocked the bot or deleted their account): { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. They were not told how their paid purchase ended, and the bot stops trying. A refund owed is made all the same (through the payment system's API, or listed in /refunds); a top-up still unknown is still checked. Reach them another way if you can.
    Charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>

# Khalti (PAYMENT_MODE=khalti)
khalti-link = Pay { $price } with Khalti below. Come back here when it is done: the top-up is made as soon as Khalti confirms your payment.
button-pay-khalti = 💳 Pay { $price } with Khalti
button-i-have-paid = ✅ I have paid
payment-check-paid = Your payment is confirmed. Topping up now…
payment-check-waiting = There is no payment for this yet. Pay with the button above, then tap "I have paid" again.
payment-check-pending = The payment system is still processing your payment. We will top up as soon as it is confirmed; you do not need to pay again.
payment-check-unfinished = eSewa says your payment was started but not finished. If you finished it in eSewa, we top up as soon as eSewa confirms it: we keep checking and will message you here.
payment-check-failed = The payment failed at the payment system. Nothing was charged; send /topup to try again.
payment-check-refunded = The payment system gave this payment back to you, so nothing was topped up. Send /topup to start again.
payment-check-part-refunded = Part of this payment was given back to you by the payment system, so it pays for no top-up: the rest is being refunded. We will message you here.
payment-check-ended = This payment link was cancelled or expired. Nothing was charged; send /topup to start again.
payment-check-window-over = The time to pay in the bot is over; no payment is confirmed yet. If you still pay on the open page, it is not lost: we top up or refund it and tell you here.
payment-check-unknown = We could not reach the payment system just now. We keep checking and will message you here.
payment-check-not-found = This payment is not known any more. Send /topup to start again.
payment-check-not-yours = This payment is someone else’s: only the person who started it can check it.
payment-check-refund = A payment was received on this link, but it pays for no top-up (the purchase was paid otherwise, or the amount differs): it is being refunded. We will message you here.
payment-check-too-soon = We asked the payment system about this a moment ago. Please wait a few seconds before tapping again: we also keep checking by ourselves and will message you here.
payment-check-checking = Your payment could not be checked automatically: our staff are checking it and will contact you here. Please do not pay again.
khalti-page-title = Top-up payment
khalti-page-paid = ✅ Payment received. Go back to Telegram: your top-up is on its way there.
khalti-page-pending = ⏳ Khalti is still processing your payment. Go back to Telegram: we will message you there as soon as it is confirmed.
khalti-page-waiting = Khalti has not confirmed a payment yet. Go back to Telegram; if you paid, we will message you there as soon as it is confirmed.
khalti-page-ended = The payment was cancelled or has expired. Nothing was charged.
khalti-page-window-over = The time to pay for this purchase is over, and Khalti has not confirmed a payment yet. If you complete this payment anyway, it is not lost: we top up or refund it and tell you in Telegram.
khalti-page-failed = ❌ The payment failed at Khalti. Nothing was charged. Go back to Telegram to try again.
khalti-page-refunded = Khalti gave this payment back to you, so nothing was topped up. Go back to Telegram to start again.
khalti-page-part-refunded = Khalti gave part of this payment back to you, so it pays for no top-up: the rest is being refunded. Go back to Telegram for the details.
khalti-page-unknown = We could not check your payment just now. Go back to Telegram: we keep checking and will message you there.
khalti-page-checking = ⚠️ Your payment could not be checked automatically: our staff are checking it. Go back to Telegram: we will contact you there. Please do not pay again.
khalti-page-back = Back to Telegram
khalti-page-refund = Khalti took a payment on this link, but it pays for no top-up (the purchase was paid otherwise, or the amount differs): it is being refunded. Go back to Telegram for the details.
refund-failed-alert = ⚠️ <b>Refund could not be made automatically</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }.
    Why: { $why ->
        [needs-mobile] Khalti needs the payer's mobile number for a bank-paid refund, and the bot has none (the return page gave none, or a masked one). Ask the payer for the number of their Khalti account, or refund it from Khalti's dashboard.
        [refused] the payment system refused the refund.
       *[other] the payment system did not answer the refund, however often it was asked.
    }
    Charge: <code>{ $charge }</code>
    Transaction: <code>{ $providerCharge }</code>
    Refund it from the payment system's dashboard, then send /refunded { $purchase }
refunded-outside-alert = ⚠️ <b>A payment was given back outside the bot</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. The payment system says it was refunded in full before the bot saw it paid: nothing was topped up and the purchase ended unpaid. Check in the payment system's portal that the buyer got all of it back.
    Offer: <code>{ $charge }</code>
part-refunded-due-alert = 💸 <b>Refund of the rest due</b>: a payment of { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. { $method ->
        [esewa] eSewa
        [khalti] Khalti
       *[other] The payment system
    } says part of it was given back outside the bot before it paid for anything (it does not say how much): nothing was topped up.{ $method ->
        [khalti] {" "}Part refunded outside: refund the rest by hand. The bot does not refund it through Khalti's API, since nobody says how much is left.
       *[other] {""}
    }
    Charge: <code>{ $charge }</code>
    Reference: <code>{ $providerCharge }</code>
    Refund the rest from the payment system's merchant portal, then send /refunded { $charge }
part-refunded-refunding-alert = ⚠️ <b>A payment given back in part outside the bot</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. Part of it went back before it paid for anything (the payment system does not say how much): nothing was topped up, and the rest is being refunded automatically.
    Charge: <code>{ $charge }</code>
    Transaction: <code>{ $providerCharge }</code>
stray-refunding-alert = ⚠️ <b>A payment that pays for nothing</b> (another amount than asked, or paid after the purchase ended): { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. Nothing was topped up; it is being refunded automatically.
    Charge: <code>{ $charge }</code>
    Transaction: <code>{ $providerCharge }</code>

# eSewa (PAYMENT_MODE=esewa)
esewa-link = Pay { $price } with eSewa below. Come back here when it is done: the top-up is made as soon as eSewa confirms your payment.
button-pay-esewa = 💳 Pay { $price } with eSewa
esewa-page-title = Top-up payment with eSewa
esewa-page-submit = Pay with eSewa
esewa-page-paid = ✅ Payment received. Go back to Telegram: your top-up is on its way there.
esewa-page-pending = ⏳ eSewa holds your payment and has not settled it yet. Do not pay again. Go back to Telegram: we will message you there as soon as it is confirmed.
esewa-page-unfinished = ⏳ eSewa says your payment was started but not finished. If you finished it in eSewa, go back to Telegram: we top up as soon as eSewa confirms it, and message you there.
esewa-page-refunded = eSewa gave this payment back to you, so nothing was topped up. Go back to Telegram to start again.
esewa-page-part-refunded = eSewa gave part of this payment back to you, so it pays for no top-up: the rest will be refunded. Go back to Telegram for the details.
esewa-page-waiting = eSewa has not confirmed a payment yet. Go back to Telegram; if you paid, we will message you there as soon as it is confirmed.
esewa-page-ended = The payment was cancelled or has expired. Nothing was charged.
esewa-page-window-over = The time to pay for this purchase is over, and eSewa has not confirmed a payment yet. If you complete this payment anyway, it is not lost: we top up or refund it and tell you in Telegram.
esewa-page-unknown = We could not check your payment with eSewa just now. Go back to Telegram: we keep checking and will message you there.
esewa-page-checking = ⚠️ Your payment could not be checked automatically: our staff are checking it. Go back to Telegram: we will contact you there. Please do not pay again.
esewa-page-back = Back to Telegram
esewa-page-unavailable = The payment page is not available just now. Nothing was charged; please open it again in a moment.
esewa-page-refund = eSewa took a payment for this, but it pays for no top-up (the purchase was paid otherwise, or the amount differs): it will be refunded. Go back to Telegram for the details.
esewa-page-invalid = This answer from eSewa could not be verified, so nothing was changed. If you paid, go back to Telegram: the bot checks every payment with eSewa itself and will message you there.

# Fonepay dynamic QR (PAYMENT_METHODS listing fonepay)
fonepay-qr-caption = 🔳 <b>Pay { $price }</b> for { $bouquet }.
    Scan this QR with your bank's or wallet's app (any app that pays Fonepay QR), or save the image and open it there.
    It can be paid until { $until }. The top-up is made as soon as Fonepay confirms your payment.
fonepay-scanned = 📲 Your QR was scanned: waiting for your bank's confirmation…
fonepay-qr-paid = ✅ This purchase is paid: do not pay this QR. If it is paid anyway, the payment is not lost: we refund it.
fonepay-qr-withdrawn = This Fonepay QR is withdrawn: please do not pay it. If it is paid anyway (even from a saved image), the payment is not lost: we top up or refund it.
fonepay-qr-invalid = The Fonepay QR could not be prepared safely, so it is not shown. Nothing was charged: send /topup to pay another way.
fonepay-refused = Fonepay could not make a QR for this payment (it said: { $message }). Nothing was charged: send /topup to pay another way, or try again later.
fonepay-qr-invalid-alert = ⚠️ <b>Fonepay answered a QR that fails its check</b> (purchase <code>{ $purchase }</code>): { $reason }. It was not shown, and the buyer was asked to pay another way. If it repeats, tell Fonepay through the acquiring bank.
fonepay-refused-alert = ⚠️ <b>Fonepay refuses QR requests</b> ({ $code }: { $message }). Buyers choosing Fonepay QR are told so and asked to pay another way. Most likely a setting: check FONEPAY_MERCHANT_CODE, FONEPAY_USERNAME, FONEPAY_PASSWORD, FONEPAY_SECRET_KEY and FONEPAY_SIGNATURE_CASE ("Data Validation Failed": the key or its case). Said once until a QR is made again.
