## Payment methods, as /report, /txn, /recent and /history name them

method-telegram = Telegram Payments (card)
method-telegram-charge = Telegram charge
method-telegram-provider-charge = provider charge
method-khalti = Khalti
method-khalti-charge = pidx
method-khalti-provider-charge = Khalti transaction
method-esewa = eSewa
method-esewa-charge = transaction_uuid
method-esewa-provider-charge = eSewa ref_id
method-fonepay = Fonepay QR
method-fonepay-charge = prn
method-fonepay-provider-charge = Fonepay trace id
method-none = No payment in the bot (agent)
