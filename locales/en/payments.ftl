# Paying in the bot (PAYMENT_MODE=telegram) and refunds.

button-pay = 💳 Pay { $price }
invoice-description = { $bouquet } ({ $period }) for { $connection }: { $price }. The top-up is made as soon as the payment is confirmed.
invoice-sent = Pay with the invoice below. The top-up is made as soon as your payment is confirmed.
payment-unpayable = This price cannot be paid in the bot. Nothing was charged. Please contact support.
payment-unavailable = Sorry, the payment could not be prepared right now. Nothing was charged. Please try again in a moment.
invoice-cancelled = Payment cancelled: the invoice can no longer be paid. Nothing was charged.
invoice-expired = The invoice was not paid in time and can no longer be paid. <b>Nothing was charged.</b> Send /topup to start again.
payment-received = ✅ Payment received. Topping up now…

payment-refused-unknown-payment = This invoice is not known to the bot. Nothing was charged.
payment-refused-amount-differs = The amount does not match this purchase. Nothing was charged.
payment-refused-payment-expired = This invoice has expired. Nothing was charged; send /topup to start again.
payment-refused-payment-cancelled = This invoice was cancelled. Nothing was charged.
payment-refused-already-paid = This purchase is already paid. Nothing was charged again.
payment-refused-topups-paused = Top-ups are paused for a moment. Nothing was charged; please try again later.
payment-refused-ledger-unavailable = The bot is temporarily unavailable. Nothing was charged; please try again in a moment.

receipt-payment = Paid: { $amount } by card (reference <code>{ $reference }</code>)
refund-why-declined = The provider declined the top-up.
refund-why-offer-changed = The package or its price changed before the top-up.
refund-why-unavailable = The top-up could not be made in time.
refund-due-told = { $why } <b>Your payment of { $amount } will be refunded</b> (reference <code>{ $reference }</code>). Support has been told; you will get a message when it is done.
refunded-told = 💸 Your payment of { $amount } (reference <code>{ $reference }</code>) was refunded. It may take a few days to show on your statement.
stray-payment-owed = We received a payment of { $amount } that does not pay for a top-up (it was paid twice, or after the purchase ended). <b>It will be refunded</b> (reference <code>{ $providerCharge }</code>).
stray-payment-refunded = 💸 Your payment of { $amount } (reference <code>{ $providerCharge }</code>) was refunded.

refund-due-alert = 💸 <b>Refund due</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }.
    Telegram charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>
    Refund it with your payment provider, then send /refunded { $purchase }
refunds-none = No refunds are due.
refunds-title = 💸 Refunds due: { $count }
refunds-line = <code>{ $purchase }</code>: { $amount }, buyer { $buyer }, due for { $hours } h
    provider charge <code>{ $providerCharge }</code>
refunds-more = …and { $count } more.
refunds-how = Refund each with your payment provider by its provider charge, then send /refunded &lt;purchase id or charge id&gt; [note].
refunded-usage = Send /refunded &lt;purchase id or charge id&gt; [note] once the payment is refunded with your payment provider.
refunded-recorded = Recorded: purchase <code>{ $purchase }</code> refunded. The buyer has been told.
refunded-nothing-due = No refund is due for <code>{ $key }</code> (unknown, or marked refunded before).
outcome-unknown-alert = ⚠️ <b>Paid top-up still unknown</b>: { $amount }, purchase <code>{ $purchase }</code>, buyer { $buyer }. The provider has not said whether it was topped up; the bot keeps asking with txn-status and refunds nothing until it knows. Check it with /txn if it lasts.
    Telegram charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>
