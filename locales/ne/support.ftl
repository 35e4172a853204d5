## Support staff: /lookup, /txn and /recent in the support group chats

support-only = यो आदेश सहायता टोलीका लागि मात्र हो, र सहायता समूहमा मात्र चल्छ।
support-lookup-usage = <code>/lookup</code> पछि मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा इन्टरनेट युजरनेम पठाउनुहोस्, जस्तै <code>/lookup 1000001</code>।
support-code-invalid = यो मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा युजरनेम जस्तो देखिएन।
support-customer-not-found = <code>{ $code }</code> मा कुनै ग्राहक भेटिएन।
support-unavailable = माफ गर्नुहोस्, सेवा प्रदायकको सेवा अहिले उपलब्ध छैन। केही मिनेटपछि फेरि प्रयास गर्नुहोस्।
support-error = माफ गर्नुहोस्, हाम्रो तर्फबाट केही गडबड भयो। फेरि प्रयास गर्नुहोस्।

## The customer card

support-card-header =
    <b>{ $name }</b>
    ग्राहक { $cuid } · { $status }
support-no-connections = कुनै जडान छैन।
support-subscriptions-failed = ⚠️ यो जडानका सदस्यताहरू ल्याउन सकिएन।
support-checked = <i>{ $time } मा जाँचिएको</i>
support-button-refresh = 🔄 ताजा गर्नुहोस्
support-card-expired = यो कार्ड अब ताजा गर्न मिल्दैन। फेरि /lookup पठाउनुहोस्।
support-refreshing = ताजा गर्दै…

## Transactions and the latest top-ups

support-state-done = ✅ सफल
support-state-pending = ⏳ प्रक्रियामा
support-state-not-charged = ↩️ रकम काटिएन
support-state-failed = ❌ असफल
support-state-awaiting-payment = 💳 भुक्तानी पर्खँदै
support-state-refund-due = 💸 तिरिएको, फिर्ता बाँकी
support-state-refunded = 💸 फिर्ता गरियो
support-txn-usage = <code>/txn</code> पछि ग्राहकको रसिदमा भएको कारोबार आईडी, चेकआउट आईडी वा हाम्रो सन्दर्भ पठाउनुहोस्, जस्तै <code>/txn tg123-abc1</code>।
support-txn-title = <b>कारोबार</b>
support-field-txn-id = कारोबार आईडी: <code>{ $value }</code>
support-field-order-id = अर्डर आईडी: <code>{ $value }</code>
support-field-customer-id = ग्राहक आईडी: { $value }
support-field-connection = जडान: { $value }
support-field-bouquet = प्याकेज: { $value }
support-field-amount-bold = रकम: <b>{ $value }</b>
support-field-date = मिति: { $value }
support-field-provider-status = सेवा प्रदायकको स्थिति: { $value }
support-txn-journal = बोटमार्फत: { $state }
support-reference = सन्दर्भ <code>{ $reference }</code>
support-journal-title = <b>बोटमार्फत गरिएको रिचार्ज</b>: { $state }
support-field-reference = सन्दर्भ: <code>{ $value }</code>
support-field-checkout-id = चेकआउट आईडी: <code>{ $value }</code>
support-field-amount = रकम: { $value }
support-field-started = सुरु भएको: { $value }
support-payment = भुक्तानी: { $method }
support-payment-paid = भुक्तानी: { $method } · { $references }
support-txn-not-at-provider = सेवा प्रदायकसँग यो रिचार्जको कुनै कारोबार छैन।
support-txn-unconfirmed = सेवा प्रदायकबाट अहिले यो रिचार्ज पुष्टि गर्न सकिएन। केही मिनेटपछि फेरि प्रयास गर्नुहोस्।
support-txn-not-found = <code>{ $query }</code> को कुनै कारोबार भेटिएन।
support-recent-title = <b>बोटमार्फत भएका पछिल्ला रिचार्जहरू</b>
support-recent-title-for = <b>{ $code } का लागि बोटमार्फत भएका पछिल्ला रिचार्जहरू</b>
support-recent-none = बोटमार्फत अहिलेसम्म कुनै रिचार्ज भएको छैन।
support-recent-none-for = <code>{ $code }</code> का लागि बोटमार्फत कुनै रिचार्ज भएको छैन।
support-recent-customer = ग्राहक { $cuid }

## Who may use the staff commands

staff-only = यो आदेश सहायता कर्मचारीले मात्र प्रयोग गर्न सक्छन्। तपाईंलाई कर्मचारीमा थप्न एडमिनलाई भन्नुहोस्।
staff-refunds-only = रिफन्ड गर्ने व्यक्तिले मात्र रिफन्ड भएको चिन्ह लगाउन सक्छन्। एडमिनलाई सोध्नुहोस्।
staff-send-as-yourself = कर्मचारी आदेशले पठाउने व्यक्ति चिन्नुपर्छ: कृपया गुमनाम वा च्यानलको रूपमा होइन, आफ्नै नामबाट पठाउनुहोस्।
staff-own-messages-only = केही गरिएन: कर्मचारी आदेशहरू तपाईंले आफैं पठाएको सन्देशबाट मात्र लिइन्छन्, फर्वार्ड गरिएको वा इनलाइन बोटमार्फत पठाइएको सन्देशबाट कहिल्यै लिइँदैनन्। साँच्चै चाहनुहुन्छ भने आदेश आफैं टाइप गर्नुहोस्।
