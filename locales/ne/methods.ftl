## Payment methods, as /report, /txn, /recent and /history name them

method-telegram = Telegram Payments (कार्ड)
method-telegram-charge = Telegram चार्ज
method-telegram-provider-charge = प्रदायक चार्ज
method-khalti = खल्ती
method-khalti-charge = pidx
method-khalti-provider-charge = खल्ती कारोबार
method-esewa = इसेवा
method-esewa-charge = transaction_uuid
method-esewa-provider-charge = इसेवा ref_id
method-fonepay = फोनपे QR
method-fonepay-charge = prn
method-fonepay-provider-charge = फोनपे trace id
method-none = बोटमा भुक्तानी छैन (एजेन्ट)
