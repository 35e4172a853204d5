# बोटमा भुक्तानी (PAYMENT_MODE=telegram) र फिर्ता।

button-pay = 💳 { $price } तिर्नुहोस्
invoice-description = { $connection } का लागि { $bouquet } ({ $period }): { $price }। भुक्तानी पुष्टि हुनासाथ टप-अप गरिन्छ।
invoice-sent = तलको बिलबाट तिर्नुहोस्। तपाईंको भुक्तानी पुष्टि हुनासाथ टप-अप गरिन्छ।
payment-unpayable = यो मूल्य बोटमा तिर्न मिल्दैन। केही पनि काटिएको छैन। कृपया सहायतालाई सम्पर्क गर्नुहोस्।
payment-unavailable = माफ गर्नुहोस्, अहिले भुक्तानी तयार गर्न सकिएन। केही पनि काटिएको छैन। कृपया केही बेरमा फेरि प्रयास गर्नुहोस्।
invoice-cancelled = भुक्तानी रद्द गरियो: यो बिल अब तिर्न मिल्दैन। केही पनि काटिएको छैन।
invoice-expired = बिल समयमै तिरिएन र अब तिर्न मिल्दैन। <b>केही पनि काटिएको छैन।</b> फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-received = ✅ भुक्तानी प्राप्त भयो। अहिले टप-अप गर्दैछौं…

payment-refused-unknown-payment = यो बिल बोटलाई थाहा छैन। केही पनि काटिएको छैन।
payment-refused-amount-differs = रकम यो खरिदसँग मिल्दैन। केही पनि काटिएको छैन।
payment-refused-payment-expired = यो बिलको म्याद सकियो। केही पनि काटिएको छैन; फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-refused-payment-cancelled = यो बिल रद्द गरिएको छ। केही पनि काटिएको छैन।
payment-refused-already-paid = यो खरिद पहिले नै तिरिसकिएको छ। फेरि केही काटिएको छैन।
payment-refused-topups-paused = टप-अप केही बेरका लागि रोकिएको छ। केही पनि काटिएको छैन; कृपया पछि फेरि प्रयास गर्नुहोस्।
payment-refused-ledger-unavailable = बोट अस्थायी रूपमा उपलब्ध छैन। केही पनि काटिएको छैन; कृपया केही बेरमा फेरि प्रयास गर्नुहोस्।

receipt-payment = भुक्तानी: कार्डबाट { $amount } (सन्दर्भ <code>{ $reference }</code>)
refund-why-declined = प्रदायकले टप-अप अस्वीकार गर्‍यो।
refund-why-offer-changed = टप-अप अघि प्याकेज वा यसको मूल्य बदलियो।
refund-why-unavailable = टप-अप समयमै गर्न सकिएन।
refund-due-told = { $why } <b>तपाईंको { $amount } भुक्तानी फिर्ता गरिनेछ</b> (सन्दर्भ <code>{ $reference }</code>)। सहायतालाई जानकारी दिइएको छ; फिर्ता भएपछि तपाईंलाई सन्देश आउनेछ।
refunded-told = 💸 तपाईंको { $amount } भुक्तानी (सन्दर्भ <code>{ $reference }</code>) फिर्ता गरियो। तपाईंको विवरणमा देखिन केही दिन लाग्न सक्छ।
stray-payment-owed = हामीले { $amount } को भुक्तानी पायौं जुन कुनै टप-अपका लागि होइन (दुई पटक तिरिएको, वा खरिद सकिएपछि तिरिएको)। <b>यो फिर्ता गरिनेछ</b> (सन्दर्भ <code>{ $providerCharge }</code>)।
stray-payment-refunded = 💸 तपाईंको { $amount } भुक्तानी (सन्दर्भ <code>{ $providerCharge }</code>) फिर्ता गरियो।

refund-due-alert = 💸 <b>फिर्ता गर्न बाँकी</b>: { $amount }, खरिद <code>{ $purchase }</code>, ग्राहक { $buyer }।
    Telegram चार्ज: <code>{ $charge }</code>
    प्रदायक चार्ज: <code>{ $providerCharge }</code>
    आफ्नो भुक्तानी प्रदायकबाट फिर्ता गर्नुहोस्, त्यसपछि /refunded { $purchase } पठाउनुहोस्
refunds-none = फिर्ता गर्न बाँकी केही छैन।
refunds-title = 💸 फिर्ता गर्न बाँकी: { $count }
refunds-line = <code>{ $purchase }</code>: { $amount }, ग्राहक { $buyer }, { $hours } घण्टादेखि बाँकी
    प्रदायक चार्ज <code>{ $providerCharge }</code>
refunds-more = …र थप { $count }।
refunds-how = प्रत्येकलाई यसको प्रदायक चार्जद्वारा आफ्नो भुक्तानी प्रदायकबाट फिर्ता गर्नुहोस्, त्यसपछि /refunded &lt;खरिद आईडी वा चार्ज आईडी&gt; [टिप्पणी] पठाउनुहोस्।
refunded-usage = भुक्तानी प्रदायकबाट फिर्ता गरेपछि /refunded &lt;खरिद आईडी वा चार्ज आईडी&gt; [टिप्पणी] पठाउनुहोस्।
refunded-recorded = दर्ता भयो: खरिद <code>{ $purchase }</code> फिर्ता गरियो। ग्राहकलाई जानकारी दिइयो।
refunded-nothing-due = <code>{ $key }</code> का लागि फिर्ता बाँकी छैन (अज्ञात, वा पहिले नै फिर्ता दर्ता गरिएको)।
outcome-unknown-alert = ⚠️ <b>भुक्तानी भएको टप-अप अझै अज्ञात</b>: { $amount }, खरिद <code>{ $purchase }</code>, ग्राहक { $buyer }। प्रदायकले टप-अप भयो कि भएन भनेको छैन; बोटले txn-status मार्फत सोधिरहन्छ र थाहा नभएसम्म केही फिर्ता गर्दैन। लामो समय रहे /txn बाट जाँच गर्नुहोस्।
    Telegram चार्ज: <code>{ $charge }</code>
    प्रदायक चार्ज: <code>{ $providerCharge }</code>
