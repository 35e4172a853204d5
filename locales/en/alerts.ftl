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
