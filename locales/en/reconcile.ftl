## The daily reconciliation (admins)

command-reconcile = Reconcile a day with the payment systems and the provider
command-resolve = Mark a reconciliation finding resolved
reconcile-started = 🔎 Reconciling { $days }: every payment system and the provider are asked, gently. The result follows here.
reconcile-malformed = Not started: give a day as YYYY-MM-DD or a range as 2026-11-01..2026-11-30 (days in { $zone }), e.g. /reconcile { $yesterday }
reconcile-reversed = Not started: the range ends before it starts.
reconcile-too-long = Not started: a range covers at most 31 days.
reconcile-clean = ✅ { $days }: every purchase matched ({ $purchases ->
        [one] 1 purchase
       *[other] { $purchases } purchases
    }).
reconcile-title = 🔎 <b>Reconciliation of { $days }</b>: { $purchases ->
        [one] 1 purchase
       *[other] { $purchases } purchases
    }, { $count ->
        [one] 1 finding open
       *[other] { $count } findings open
    }.
reconcile-kind = • { $label }: { $count }
reconcile-settled = ✔️ Settled by the bot: { $count ->
        [one] 1 payment it had missed, now recorded, with a top-up started or a refund owed
       *[other] { $count } payments it had missed, now recorded, with a top-up started or a refund owed
    }.
reconcile-earlier = Still open from earlier days: { $count }
reconcile-earlier-line = • #{ $id } { $day }: { $label }, purchase { $purchase }, provider { $transactions }
reconcile-more = … and { $count } more (in the file).
reconcile-drift = Provider balance read at { $at }: { $reading }, expected { $expected } (difference { $drift }).
reconcile-resolve-hint = Each finding, its ids (the provider's transaction beside each checkout), amounts and next step are in the file; mark one done with /resolve ID NOTE.
reconcile-telegram = Card payments (Telegram Payments) cannot be asked: they are compared as Telegram confirmed them.
resolve-done = Finding #{ $id } is resolved.
resolve-unknown = No open finding #{ $id }.
resolve-usage = Use /resolve ID NOTE, e.g. /resolve 12 refunded by hand at the bank.
finding-paid-not-settled = Paid, neither topped up nor refunded
finding-topped-up-unpaid = Topped up with no payment recorded
finding-amount-differs = Amounts differ
finding-refunded-outside-only = Refunded at the payment system, not in the ledger
finding-refunded-ledger-only = Refunded in the ledger, not at the payment system
finding-rest-owed = Given back in part at the payment system, the rest still owed
finding-provider-charged-unexpectedly = Executed at the provider, not charged in the ledger
finding-payment-not-found = Payment recorded, unknown to the payment system
finding-paid-twice = Paid twice
finding-topped-up-twice = Topped up twice
finding-not-asked = Could not be asked
finding-charged-not-executed = Charged in the ledger, no transaction at the provider
