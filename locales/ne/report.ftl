## Finance reports (admins)

command-report = वित्तीय रिपोर्ट: बिक्री, नतिजा, CSV
report-title = 📊 वित्तीय रिपोर्ट { $period }
report-days = दिनहरू { $zone } समयअनुसार; खरिद पुष्टि भएकै दिनमा गनिन्छ।
report-charged = ✅ शुल्क लागेको: { $count } · { $sum }
report-declined = ⛔ प्रदायकले अस्वीकार गरेको: { $count } · { $sum }
report-not-charged = ↩️ शुल्क नलागेको, अन्य कारण: { $count } · { $sum }
report-unknown = ❓ नतिजा अझै थाहा नभएको: { $count } · { $sum }
report-pending = ⏳ प्रदायकलाई अझै नपठाइएको: { $count } · { $sum }
report-awaiting-payment = 🧾 भुक्तानी पर्खँदै: { $count } · { $sum }
report-unpaid = 🚫 नतिरिएको (रद्द वा म्याद सकिएको), केही नकाटिएको: { $count } · { $sum }
report-refund-due = 💸 तिरिएको, टप-अप नभएको, फिर्ता बाँकी: { $count } · { $sum }
report-refunded = 💸 तिरिएको, टप-अप नभएको, फिर्ता गरिएको: { $count } · { $sum }
report-by-service = सेवाअनुसार शुल्क लागेको
report-line = { $name }: { $count } · { $sum }
report-by-method = भुक्तानी विधिअनुसार शुल्क लागेको, फिर्ता बाँकी र फिर्ता गरिएको
report-method-line = { $method }: { $figures }
report-method-charged = ✅ { $count } · { $sum }
report-method-refund-due = 💸 फिर्ता बाँकी { $count } · { $sum }
report-method-refunded = 💸 फिर्ता गरिएको { $count } · { $sum }
report-best-sellers = सबैभन्दा बढी बिकेका (शुल्क लागेको)
report-best-seller = { $rank }. { $name } ({ $code }): { $count } · { $sum }
report-no-sales = कुनै बिक्री छैन।
report-open = 🔓 अहिले खुला (जुनसुकै दिनको): { $count } · { $sum }
report-chart-title = दैनिक शुल्क लागेको रकम, { $period }
report-payments = 💳 बोटमा भएका भुक्तानी, यी दिनहरूमा प्राप्त
report-payments-received = प्राप्त: { $count } · { $sum }
report-payments-refund-due = फिर्ता गर्नुपर्ने, अझै फिर्ता नगरिएको: { $count } · { $sum }
report-payments-refunded = फिर्ता गरिएको: { $count } · { $sum }
report-refunds-due-now = ⏰ अहिले फिर्ता गर्न बाँकी (जुनसुकै दिनको): { $count } · { $sum }
report-payments-unsettled = ⚠️ { $seconds } सेकेन्डभन्दा पहिले तिरिएको, तर न शुल्क लागेको न फिर्ता बाँकीमा दर्ता भएको: { $count } · { $sum }
report-charged-unpaid = ⚠️ शुल्क लागेको, तर माग गरिएको भुक्तानी दर्ता छैन: { $count } · { $sum }
report-malformed =
    यो न कुनै दिन हो न दिनहरूको दायरा। यसरी पठाउनुहोस्:
    /report – आज
    /report 2026-11-20 – एक दिन
    /report 2026-11-01..2026-11-30 – दायरा, दुवै दिन समेत (बढीमा ३६६ दिन)
report-reversed = दायरा सुरु हुनुअघि नै सकिन्छ: पहिलेको दिन पहिले लेख्नुहोस्, जस्तै /report 2026-11-01..2026-11-30।
report-too-long = एउटा रिपोर्टले बढीमा ३६६ दिन समेट्छ: छोटो दायरा माग्नुहोस्।
report-future = त्यो दिन अझै आएको छैन: आज { $today } ({ $zone }) हो।
