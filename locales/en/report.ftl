## Finance reports (admins)

command-report = Finance report: sales, outcomes, CSV
report-title = 📊 Finance report { $period }
report-days = Days in { $zone }; a purchase counts on the day it was confirmed.
report-charged = ✅ Charged: { $count } · { $sum }
report-declined = ⛔ Declined by the provider: { $count } · { $sum }
report-not-charged = ↩️ Not charged, other reasons: { $count } · { $sum }
report-unknown = ❓ Still unknown: { $count } · { $sum }
report-pending = ⏳ Not sent to the provider yet: { $count } · { $sum }
report-awaiting-payment = 🧾 Waiting for payment: { $count } · { $sum }
report-unpaid = 🚫 Not paid (cancelled or expired), nothing charged: { $count } · { $sum }
report-refund-due = 💸 Paid, not topped up, refund due: { $count } · { $sum }
report-refunded = 💸 Paid, not topped up, refunded: { $count } · { $sum }
report-by-service = Charged, by service
report-line = { $name }: { $count } · { $sum }
report-by-method = Charged, owed back and refunded, by payment method
report-method-line = { $method }: { $figures }
report-method-charged = ✅ { $count } · { $sum }
report-method-refund-due = 💸 owed back { $count } · { $sum }
report-method-refunded = 💸 refunded { $count } · { $sum }
report-best-sellers = Best sellers (charged)
report-best-seller = { $rank }. { $name } ({ $code }): { $count } · { $sum }
report-no-sales = No sales.
report-open = 🔓 Open right now (of any day): { $count } · { $sum }
report-chart-title = Charged per day, { $period }
report-payments = 💳 Payments in the bot, received on these days
report-payments-received = Received: { $count } · { $sum }
report-payments-refund-due = Owed back, not refunded yet: { $count } · { $sum }
report-payments-refunded = Refunded: { $count } · { $sum }
report-refunds-due-now = ⏰ Refunds due right now (of any day): { $count } · { $sum }
report-payments-unsettled = ⚠️ Paid over { $seconds } s ago, yet neither charged nor owed back: { $count } · { $sum }
report-charged-unpaid = ⚠️ Charged, but the payment it asked for is not recorded: { $count } · { $sum }
report-malformed =
    That is not a day or a range of days. Send:
    /report – today
    /report 2026-11-20 – one day
    /report 2026-11-01..2026-11-30 – a range, both days included (at most 366 days)
report-reversed = The range ends before it starts: put the earlier day first, e.g. /report 2026-11-01..2026-11-30.
report-too-long = A report covers at most 366 days: ask for a shorter range.
report-future = That day has not come yet: today is { $today } ({ $zone }).
