## Alerts to admins and support groups about the provider

alert-token-refused =
    ⚠️ <b>Top-ups are paused: the provider refuses our token</b> (HTTP 401/403).
    Check PROVIDER_TOKEN and restart the bot. Users are told that top-ups are paused.
alert-down =
    ⚠️ <b>Top-ups are paused: the provider is not answering</b> ({ $failures } calls in a row failed).
    Users are told to try again later; the bot tries again every { $probe } seconds.
alert-recovered = ✅ <b>The provider answers again</b>: top-ups are back.

## Alert about customer lookups (LOOKUP_BUDGET_PER_HOUR)

alert-lookup-budget =
    ⚠️ <b>Unusually many customer lookups</b>: more than { $budget } in the last hour, all users together. Someone may be trying codes to find customers.
    Users who start looking up now get fewer tries; the rest carry on. Every lookup is counted per user.

## Alert about the provider balance (BALANCE_ALERT_BELOW)

alert-balance-low =
    ⚠️ <b>Provider balance low</b>: the balance expected at the provider is { $expected }, below { $below }.
    Deposit at the provider and record it with /balance add, or record the portal's balance with /balance set.

## Alert about purchases stopped (BALANCE_STOP_BELOW)

alert-balance-stop =
    ⛔ <b>Purchases stopped</b>: a purchase of { $price } was refused, the balance expected at the provider ({ $expected }) would fall below { $below }. Purchases are refused until a deposit or reading is recorded with /balance.

## Alerts about payments that only a person can settle

alert-payment-kept-nowhere =
    ⚠️ <b>A payment confirmation could not be kept</b>: the ledger's database is away and the payment journal cannot be written (a full or failing disk?).
    Telegram keeps the confirmation and the bot tries again until it is kept; in polling mode, other updates wait meanwhile. Bring the database back or free the journal's disk.
    Purchase <code>{ $purchase }</code>, charge <code>{ $charge }</code>.
alert-payment-set-aside =
    ⚠️ <b>A payment was set aside</b>: it could not be recorded as it came ({ $reason }). Nothing was topped up and nothing is refunded by the bot.
    Purchase <code>{ $purchase }</code>, buyer { $buyer }, { $method }, amount stated { $amount } ({ $currency }, minor units).
    Charge: <code>{ $charge }</code>
    Provider charge: <code>{ $providerCharge }</code>
    Check it with the payment system, settle it by hand (refund it, or top up), then send /refunded { $charge }
alert-payment-unsettled =
    ⚠️ <b>A payment is still unsettled at { $method }</b> after its offer could no longer be paid: { $reason }. Nothing was topped up or refunded for it yet.
    Purchase <code>{ $purchase }</code>, buyer { $buyer }, amount asked { $amount } ({ $currency }, minor units).
    Offer: <code>{ $charge }</code>
    The bot keeps asking, settles it as soon as { $method } answers, and lists it in /refunds meanwhile. If it lasts, check it with { $method }; /refunded { $charge } closes it.
alert-journal-quarantined =
    ⚠️ <b>{ $lines } payment journal line(s) could not be believed</b> (unreadable, torn, edited, forged, or written before lines were signed) and were moved to payments.journal.quarantine beside the journal. None was topped up.
    Check each against the payment systems' records; settle a real payment by hand.
