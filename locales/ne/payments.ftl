# बोटमा भुक्तानी (PAYMENT_MODE=telegram) र फिर्ता।

button-pay = 💳 { $price } तिर्नुहोस्
invoice-description = { $connection } का लागि { $bouquet } ({ $period }): { $price }। भुक्तानी पुष्टि हुनासाथ टप-अप गरिन्छ।
invoice-sent = तलको बिलबाट तिर्नुहोस्। तपाईंको भुक्तानी पुष्टि हुनासाथ टप-अप गरिन्छ।

# धेरै तरिका (PAYMENT_METHODS): पुष्टि स्क्रिनमा प्रत्येकको एउटा बटन, मिलाइएको क्रममा।
pay-method-telegram = 💳 कार्डबाट तिर्नुहोस्
pay-method-khalti = 📱 खल्तीबाट तिर्नुहोस्
payment-method-switch = बरु अर्कै तरिकाले तिर्न तल छान्नुहोस्: यो प्रस्ताव त्यसपछि फिर्ता लिइन्छ।

payment-unpayable = यो मूल्य बोटमा तिर्न मिल्दैन। केही पनि काटिएको छैन। कृपया सहायतालाई सम्पर्क गर्नुहोस्।
payment-unavailable = माफ गर्नुहोस्, अहिले भुक्तानी तयार गर्न सकिएन। केही पनि काटिएको छैन। कृपया केही बेरमा फेरि प्रयास गर्नुहोस्।
invoice-cancelled = भुक्तानी रद्द गरियो: यो बिल अब तिर्न मिल्दैन। केही पनि काटिएको छैन।
invoice-expired = बिल समयमै तिरिएन र अब तिर्न मिल्दैन। <b>केही पनि काटिएको छैन।</b> फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-received = ✅ भुक्तानी प्राप्त भयो। अहिले टप-अप गर्दैछौं…
payment-processing = ✅ भुक्तानी प्राप्त भयो। यो प्रक्रियामा छ: टप-अप हुनासाथ तपाईंलाई यहीँ सन्देश आउनेछ। फेरि भुक्तानी गर्नु पर्दैन।

payment-refused-unknown-payment = यो बिल बोटलाई थाहा छैन। केही पनि काटिएको छैन।
payment-refused-amount-differs = रकम यो खरिदसँग मिल्दैन। केही पनि काटिएको छैन।
payment-refused-payment-expired = यो बिलको म्याद सकियो। केही पनि काटिएको छैन; फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-refused-payment-cancelled = यो बिल रद्द गरिएको छ। केही पनि काटिएको छैन।
payment-refused-already-paid = यो खरिद पहिले नै तिरिसकिएको छ। फेरि केही काटिएको छैन।
payment-refused-topups-paused = टप-अप केही बेरका लागि रोकिएको छ। केही पनि काटिएको छैन; कृपया पछि फेरि प्रयास गर्नुहोस्।
payment-refused-ledger-unavailable = बोट अस्थायी रूपमा उपलब्ध छैन। केही पनि काटिएको छैन; कृपया केही बेरमा फेरि प्रयास गर्नुहोस्।

receipt-payment = भुक्तानी: { $method ->
    [khalti] खल्तीबाट
   *[other] कार्डबाट
} { $amount } (सन्दर्भ <code>{ $reference }</code>)
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

# Khalti (PAYMENT_MODE=khalti)
khalti-link = तलको बटनबाट खल्तीमार्फत { $price } तिर्नुहोस्। सकिएपछि यहाँ फर्कनुहोस्: खल्तीले भुक्तानी पुष्टि गर्नासाथ टप-अप गरिन्छ।
button-pay-khalti = 💳 खल्तीबाट { $price } तिर्नुहोस्
button-i-have-paid = ✅ मैले तिरें
payment-check-paid = तपाईंको भुक्तानी पुष्टि भयो। अहिले टप-अप गर्दैछौं…
payment-check-waiting = खल्तीमा यसको भुक्तानी अझै छैन। माथिको बटनबाट तिर्नुहोस्, त्यसपछि फेरि "मैले तिरें" थिच्नुहोस्।
payment-check-pending = खल्तीले तपाईंको भुक्तानी अझै प्रक्रिया गर्दैछ। पुष्टि हुनासाथ टप-अप गर्छौं; फेरि तिर्नु पर्दैन।
payment-check-ended = यो भुक्तानी लिङ्क रद्द भयो वा म्याद सकियो। केही पनि काटिएको छैन; फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-check-unknown = अहिले खल्तीसँग सम्पर्क हुन सकेन। हामी जाँचिरहन्छौं र यहीँ सन्देश पठाउनेछौं।
payment-check-not-found = यो भुक्तानी अब थाहा छैन। फेरि सुरु गर्न /topup पठाउनुहोस्।
payment-check-not-yours = यो भुक्तानी अरू कसैको हो: सुरु गर्ने व्यक्तिले मात्र जाँच गर्न सक्नुहुन्छ।
khalti-page-title = टप-अप भुक्तानी
khalti-page-paid = ✅ भुक्तानी प्राप्त भयो। Telegram मा फर्कनुहोस्: तपाईंको टप-अप त्यहाँ आउँदैछ।
khalti-page-pending = ⏳ खल्तीले तपाईंको भुक्तानी अझै प्रक्रिया गर्दैछ। Telegram मा फर्कनुहोस्: पुष्टि हुनासाथ त्यहीँ सन्देश पठाउनेछौं।
khalti-page-waiting = खल्तीले अझै भुक्तानी पुष्टि गरेको छैन। Telegram मा फर्कनुहोस्; तपाईंले तिर्नुभएको भए पुष्टि हुनासाथ त्यहीँ सन्देश पठाउनेछौं।
khalti-page-ended = भुक्तानी रद्द भयो वा म्याद सकियो। केही पनि काटिएको छैन।
khalti-page-unknown = अहिले तपाईंको भुक्तानी जाँच गर्न सकिएन। Telegram मा फर्कनुहोस्: हामी जाँचिरहन्छौं र त्यहीँ सन्देश पठाउनेछौं।
khalti-page-back = Telegram मा फर्कनुहोस्
refund-failed-alert = ⚠️ <b>स्वचालित रूपमा फिर्ता गर्न सकिएन</b>: { $amount }, खरिद <code>{ $purchase }</code>, ग्राहक { $buyer }।
    चार्ज: <code>{ $charge }</code>
    कारोबार: <code>{ $providerCharge }</code>
    भुक्तानी प्रणालीको ड्यासबोर्डबाट फिर्ता गर्नुहोस्, त्यसपछि /refunded { $purchase } पठाउनुहोस्
stray-refunding-alert = ⚠️ <b>कुनै टप-अपको लागि नभएको भुक्तानी</b> (मागेभन्दा फरक रकम, वा खरिद सकिएपछि तिरिएको): { $amount }, खरिद <code>{ $purchase }</code>, ग्राहक { $buyer }। केही टप-अप गरिएको छैन; यो स्वचालित रूपमा फिर्ता गरिँदैछ।
    चार्ज: <code>{ $charge }</code>
    कारोबार: <code>{ $providerCharge }</code>
