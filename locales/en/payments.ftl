# Paying in the bot (PAYMENT_METHODS) and refunds.

button-pay = 💳 Pay { $price }
invoice-description = { $bouquet } ({ $period }) for { $connection }: { $price }. The top-up is made as soon as the payment is confirmed.
invoice-sent = Pay with the invoice below. The top-up is made as soon as your payment is confirmed.

# Several methods (PAYMENT_METHODS): one button each on the confirm screen, in the configured order.
pay-method-telegram = 💳 Pay by card
pay-method-khalti = 📱 Pay with Khalti
pay-method-esewa = 🟢 Pay with eSewa
payment-method-switch = To pay another way instead, choose it below: this offer is then withdrawn.

payment-unpayable = This price cannot be paid in the bot. Nothing was charged. Please contact support.
payment-unavailable = Sorry, the payment could not be prepared right now. Nothing was charged. Please try again in a moment.
invoice-cancelled = Payment cancelled: the invoice can no longer be paid. Nothing was charged.
invoice-expired = The invoice was not paid in time and can no longer be paid. <b>Nothing was charged.</b> Send /topup to start again.
payment-received = ✅ Payment received. Topping up now…
payment-processing = ✅ Payment received. It is being processed: you will get a message here as soon as the top-up is made. You do not need to pay again.

payment-refused-unknown-payment = This invoice is not known to the bot. Nothing was charged.
payment-refused-amount-differs = The amount does not match this purchase. Nothing was charged.
payment-refused-payment-expired = This invoice has expired. Nothing was charged; send /topup to start again.
payment-refused-payment-cancelled = This invoice was cancelled. Nothing was charged.
payment-refused-already-paid = This purchase is already paid. Nothing was charged again.
payment-refused-topups-paused = Top-ups are paused for a moment. Nothing was charged; please try again later.
payment-refused-ledger-unavailable = The bot is temporarily unavailable. Nothing was charged; please try again in a moment.

receipt-payment = Paid: { $amount } { $method ->
    [khalti] with Khalti
    [esewa] with eSewa
   *[other] by card
} (reference <code>{ $reference }</code>)
refund-why-declined = The provider declined the top-up.
refund-why-offer-changed = The package or its price changed before the top-up.
refund-why-unavailable = The top-up could not be made in time.
refund-due-told = { $why } <b>Your payment of { $amount } will be refunded</b> (reference <code>{ $reference }</code>). Support has been told; you will get a message when it is done.
refunded-told = 💸 Your payment of { $amount } (reference <code>{ $reference }</code>) was refunded. It may take a few days to show on your statement.
stray-payment-owed = We received a payment of { $amount } that does not pay for a top-up (it was paid twice, or after the purchase ended). <b>It will be refunded</b> (reference <code>{ $providerCharge }</code>).
stray-payment-refunded = 💸 Your payment of { $amount } (reference <code>{ $providerCharge }</code>) was refunded.

refund-due-alert = 💸 <b>Refund due</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }.
    { $method ->
        [esewa] eSewa transaction_uuid: <code>{ $charge }</code>
        eSewa reference (ref_id): <code>{ $providerCharge }</code>
        eSewa has no refund API: refund it from the eSewa merchant portal (or through eSewa's support), then send /refunded { $purchase }
       *[other] Telegram charge: <code>{ $charge }</code>
        Provider charge: <code>{ $providerCharge }</code>
        Refund it with your payment provider, then send /refunded { $purchase }
    }
refunds-none = No refunds are due.
refunds-title = 💸 Refunds due: { $count }
refunds-line = <code>{ $purchase }</code>: { $amount }, buyer { $buyer }, due for { $hours } h
    { $paidWith } · { $reference }
refunds-more = …and { $count } more.
refunds-how = Refund each with your payment provider by its provider charge, then send /refunded &lt;purchase id or charge id&gt; [note].
refunded-usage = Send /refunded &lt;purchase id or charge id&gt; [note] once the payment is refunded with your payment provider.
refunded-recorded = Recorded: purchase <code>{ $purchase }</code> refunded. The buyer has been told.
refunded-nothing-due = No refund is due for <code>{ $key }</code> (unknown, or marked refunded before).
outcome-unknown-alert = ⚠️ <b>Paid top-up still unknown</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. The provider has not said whether it was topped up; the bot keeps asking with txn-status and refunds nothing until it knows. Check it with /txn if it lasts.
    Telegram charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>

# Khalti (PAYMENT_MODE=khalti)
khalti-link = Pay { $price } with Khalti below. Come back here when it is done: the top-up is made as soon as Khalti confirms your payment.
button-pay-khalti = 💳 Pay { $price } with Khalti
button-i-have-paid = ✅ I have paid
payment-check-paid = Your payment is confirmed. Topping up now…
payment-check-waiting = There is no payment for this yet. Pay with the button above, then tap "I have paid" again.
payment-check-pending = The payment system is still processing your payment. We will top up as soon as it is confirmed; you do not need to pay again.
payment-check-ended = This payment link was cancelled or expired. Nothing was charged; send /topup to start again.
payment-check-unknown = We could not reach the payment system just now. We keep checking and will message you here.
payment-check-not-found = This payment is not known any more. Send /topup to start again.
payment-check-not-yours = This payment is someone else’s: only the person who started it can check it.
khalti-page-title = Top-up payment
khalti-page-paid = ✅ Payment received. Go back to Telegram: your top-up is on its way there.
khalti-page-pending = ⏳ Khalti is still processing your payment. Go back to Telegram: we will message you there as soon as it is confirmed.
khalti-page-waiting = Khalti has not confirmed a payment yet. Go back to Telegram; if you paid, we will message you there as soon as it is confirmed.
khalti-page-ended = The payment was cancelled or has expired. Nothing was charged.
khalti-page-unknown = We could not check your payment just now. Go back to Telegram: we keep checking and will message you there.
khalti-page-back = Back to Telegram
refund-failed-alert = ⚠️ <b>Refund could not be made automatically</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }.
    Charge: <code>{ $charge }</code>
    Transaction: <code>{ $providerCharge }</code>
    Refund it from the payment system's dashboard, then send /refunded { $purchase }
refunded-outside-alert = ⚠️ <b>A payment was given back outside the bot</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. The payment system says it was refunded (in full or in part) before the bot saw it paid: nothing was topped up and the purchase ended unpaid. Check in the payment system's portal that the buyer got all of it back.
    Offer: <code>{ $charge }</code>
stray-refunding-alert = ⚠️ <b>A payment that pays for nothing</b> (another amount than asked, or paid after the purchase ended): { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. Nothing was topped up; it is being refunded automatically.
    Charge: <code>{ $charge }</code>
    Transaction: <code>{ $providerCharge }</code>

# eSewa (PAYMENT_MODE=esewa)
esewa-link = Pay { $price } with eSewa below. Come back here when it is done: the top-up is made as soon as eSewa confirms your payment.
button-pay-esewa = 💳 Pay { $price } with eSewa
esewa-page-title = Top-up payment with eSewa
esewa-page-paying = You are paying { $price } for { $bouquet }. The button takes you to eSewa to pay; the top-up is made in Telegram as soon as eSewa confirms the payment.
esewa-page-submit = Pay with eSewa
esewa-page-paid = ✅ Payment received. Go back to Telegram: your top-up is on its way there.
esewa-page-pending = ⏳ eSewa is still processing your payment. Do not pay again. Go back to Telegram: we will message you there as soon as it is confirmed.
esewa-page-waiting = eSewa has not confirmed a payment yet. Go back to Telegram; if you paid, we will message you there as soon as it is confirmed.
esewa-page-ended = The payment was cancelled or has expired. Nothing was charged.
esewa-page-unknown = We could not check your payment with eSewa just now. Go back to Telegram: we keep checking and will message you there.
esewa-page-back = Back to Telegram
esewa-page-invalid = This answer from eSewa could not be verified, so nothing was changed. If you paid, go back to Telegram: the bot checks every payment with eSewa itself and will message you there.
