## Welcome, help, language

welcome =
    स्वागत छ! म तपाईंको टिभी, इन्टरनेट र आईपीटिभी प्याकेज एक मिनेटमै नवीकरण गर्न मद्दत गर्छु।
    सुरु गर्न तलको बटन थिच्नुहोस् वा /topup पठाउनुहोस्। /help ले सबै सुविधा देखाउँछ।
button-start-topup = अहिले रिचार्ज गर्नुहोस्
button-start-again = 🔄 फेरि सुरु गर्नुहोस्
start-forwarded-invoice = यो बिल अरू कसैलाई पठाइएको हो: खरिद सुरु गर्ने व्यक्तिले मात्र त्यसको बिल तिर्न सक्छ, र केही पनि काटिएको छैन। आफ्नै प्याकेज नवीकरण गर्न तलको बटन थिच्नुहोस् वा /topup पठाउनुहोस्।
help =
    /topup – प्याकेज नवीकरण: मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा इन्टरनेट युजरनेम दिनुहोस्
    /topup 1000001 – उही, कोड सँगै पठाएर
    /history – तपाईंका पछिल्ला रिचार्ज र तिनको नतिजा
    /forget – सुरक्षित जडानहरू र तपाईंले दिनुभएको फोन नम्बर बिर्सनुहोस्
    /reminders – म्याद सकिने रिमाइन्डरहरू, रद्द गर्न
    /cancel – जुनसुकै बेला हालको चरण छोड्नुहोस्
    /language – भाषा छान्नुहोस्
    /stop – हाम्रा सूचनाहरू बन्द (/start ले फेरि खोल्छ)
    /help – यो सन्देश
language-choose = आफ्नो भाषा छान्नुहोस्:
language-set = भाषा नेपालीमा परिवर्तन भयो।

command-start = स्वागत र सुविधाहरू
command-topup = प्याकेज नवीकरण
command-cancel = हालको चरण छोड्नुहोस्
command-help = यो बोट कसरी प्रयोग गर्ने
command-language = भाषा छान्नुहोस्

## Step 1: who to top up

ask-code =
    कसको प्याकेज नवीकरण गर्ने? मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा इन्टरनेट युजरनेम पठाउनुहोस्।
    वा तल “मेरो फोन नम्बर दिनुहोस्” थिच्नुहोस्।
share-phone-button = 📱 मेरो फोन नम्बर दिनुहोस्
ask-code-shop = त्यसपछि तपाईंको नम्बर पसलका लागि राखिन्छ, जसले तपाईंका आफ्नै जडानहरू देखाउँछ; /forget ले यसलाई बिर्सन्छ।
code-placeholder = मोबाइल नम्बर, ग्राहक आईडी, STB वा युजरनेम
code-invalid = यो मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा युजरनेम जस्तो देखिएन। कृपया जाँचेर फेरि पठाउनुहोस्।
contact-not-own = कृपया बटनबाट आफ्नै फोन नम्बर दिनुहोस्, वा नम्बर टाइप गर्नुहोस्।
customer-not-found = <code>{ $code }</code> मा कुनै ग्राहक भेटिएन। जाँचेर अर्को कोड पठाउनुहोस्, वा /cancel।
hint-send-code = कृपया मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा युजरनेम टेक्स्टमा पठाउनुहोस्, वा /cancel।
no-connections = यो ग्राहकको नवीकरण गर्न मिल्ने कुनै जडान छैन। अर्को ग्राहकको लागि /topup पठाउनुहोस्, वा सहायता केन्द्रमा सम्पर्क गर्नुहोस्।

## Step 2: which connection

customer-card = <b>{ $name }</b> · ग्राहक { $cuid } ({ $status })
customer-card-masked = <b>{ $name }</b> ({ $status })
masked-note = <i>कोडबाट भेटिएकोले नाम र नम्बरहरू आंशिक रूपमा लुकाइएका छन् र सकिने मिति देखाइएको छैन। आफ्नै सबै विवरण हेर्न /topup पठाएर आफ्नै फोन नम्बर दिनुहोस्।</i>
connection-label = { $service } { $id } · { $status }
service-tv = टिभी
service-internet = इन्टरनेट
service-iptv = आईपीटिभी
status-active = सक्रिय
status-inactive = निष्क्रिय
choose-connection = कुन जडान नवीकरण गर्ने?
choose-connection-paged = कुन जडान नवीकरण गर्ने? (पृष्ठ { $page } / { $pages })
inactive-can-renew = निष्क्रिय जडान पनि नवीकरण गर्न सकिन्छ: रिचार्जले त्यसलाई फेरि सक्रिय बनाउँछ।
hint-use-buttons = कृपया माथिको कुनै बटन थिच्नुहोस्, वा /cancel।

## Step 3: what to buy

subscriptions-title = हालका सदस्यताहरू
subscriptions-none = हाल कुनै सदस्यता छैन।
subscription-line-date = • { $name } – { $end } सम्म
subscription-line-name = • { $name }
subscription-line = • { $name } – { $end } सम्म, { $relative }
expires-in = { $days } दिनमा सकिन्छ
expired-ago = { $days } दिन अघि सकियो
ends-today = आज सकिन्छ
choose-package = किन्ने प्याकेज छान्नुहोस्:
renew-button = 🔁 { $name } ({ $billing }) नवीकरण · { $price }
bouquet-button = { $name } ({ $billing }) · { $price }
filter-monthly = मासिक
filter-quarterly = त्रैमासिक
filter-half-yearly = अर्धवार्षिक
filter-yearly = वार्षिक
filter-addon = एड-अन
filter-other = अन्य
list-title = <b>{ $filter }</b> प्याकेजहरू
list-title-paged = <b>{ $filter }</b> प्याकेजहरू · पृष्ठ { $page } / { $pages }
page-indicator = { $page }/{ $pages }
button-prev = ‹ अघिल्लो
button-next = अर्को ›
button-back = पछाडि
button-cancel = रद्द गर्नुहोस्

## Step 4: confirm

confirm-title = कृपया रिचार्ज पुष्टि गर्नुहोस्
confirm-summary =
    ग्राहक: { $customer }
    जडान: { $connection }
    प्याकेज: { $bouquet }
    अवधि: { $period }
    मूल्य: <b>{ $price }</b>
period-monthly = मासिक
period-quarterly = त्रैमासिक
period-half-yearly = अर्धवार्षिक
period-yearly = वार्षिक
period-addon = एड-अन
period-addon-of = एड-अन, { $period }
period-other = एक पटक
button-confirm = ✅ पुष्टि गरी भुक्तानी गर्नुहोस्
price-changed = ⚠️ यो प्याकेजको मूल्य { $old } बाट <b>{ $new }</b> भएको छ। कृपया फेरि पुष्टि गर्नुहोस्।
package-changed = ⚠️ यो प्याकेज परिवर्तन भएको छ। कृपया जाँचेर फेरि पुष्टि गर्नुहोस्।
bouquet-gone = ⚠️ त्यो प्याकेज अब उपलब्ध छैन। अहिले उपलब्ध प्याकेजहरू यी हुन्।

## Step 5 and 6: paying and the outcome

processing = प्रक्रिया हुँदैछ…
processing-topup = तपाईंको रिचार्ज प्रक्रिया हुँदैछ…
purchase-balance-stop = ⛔ यो प्याकेज अहिले किन्न सकिँदैन। कुनै रकम काटिएको छैन; कृपया पछि फेरि प्रयास गर्नुहोस्।
checking-topup = ⏳ सेवा प्रदायकले रिचार्ज अझै पुष्टि गरेको छैन। जाँच्दैछौं…
receipt =
    ✅ <b>रिचार्ज सफल भयो</b>
    कारोबार: <code>{ $txnId }</code>
    प्याकेज: { $bouquet } ({ $period })
    रकम: <b>{ $amount }</b>
receipt-date = मिति: { $date }
receipt-renewed-until = नवीकरण गरिएको अवधि: <b>{ $date }</b> सम्म
receipt-renewed = तपाईंको प्याकेज नवीकरण भयो।
receipt-connection = जडान: { $connection }
button-another = अर्को रिचार्ज
button-done = सकियो
done-bye = धन्यवाद! अर्को रिचार्ज चाहिँदा /topup पठाउनुहोस्।
not-charged = तपाईंको रिचार्ज पूरा गर्न सकिएन। <b>कुनै रकम काटिएको छैन।</b> फेरि प्रयास गर्न सक्नुहुन्छ।
button-retry = फेरि प्रयास गर्नुहोस्
still-checking = तपाईंको रिचार्ज पुष्टि गर्न सेवा प्रदायकसम्म अझै पुग्न सकिएन। तपाईंको भुक्तानी सुरक्षित छ: थाहा हुनासाथ यहीँ सन्देश पठाउनेछौं। कृपया यस बीचमा फेरि भुक्तानी नगर्नुहोस्।
still-checking-topup = यो रिचार्ज पुष्टि गर्न सेवा प्रदायकसम्म अझै पुग्न सकिएन। थाहा हुनासाथ यहीँ सन्देश पठाउनेछौं। कृपया यस बीचमा फेरि रिचार्ज नगर्नुहोस्।
purchase-rejected = सेवा प्रदायकले यो रिचार्ज अस्वीकार गर्‍यो। कुनै रकम काटिएको छैन। सहायता केन्द्रमा सम्पर्क गर्दा कोड <code>{ $code }</code> भन्नुहोस्।
purchase-busy = यस च्याटमा अर्को रिचार्ज प्रक्रियामै छ। कृपया त्यसको नतिजा पर्खनुहोस्।
lookup-limited = ग्राहक खोज्ने धेरै प्रयास भयो। कृपया { $time } मा फेरि प्रयास गर्नुहोस्।
provider-unavailable = माफ गर्नुहोस्, सेवा प्रदायकको सेवा अहिले उपलब्ध छैन। कुनै रकम काटिएको छैन। केही मिनेटपछि फेरि प्रयास गर्नुहोस्।
topups-paused = रिचार्ज अहिलेलाई रोकिएको छ: सेवा प्रदायकले हाम्रा अनुरोधहरू स्वीकार गरिरहेको छैन। हाम्रो टोलीलाई जानकारी दिइएको छ। कुनै रकम काटिएको छैन।
topups-paused-paid = ⏸ रिचार्ज अहिलेलाई रोकिएको छ: सेवा प्रदायकले हाम्रा अनुरोधहरू स्वीकार गरिरहेको छैन, र हाम्रो टोलीलाई जानकारी दिइएको छ। तपाईंको भुक्तानी सुरक्षित छ: रिचार्ज फेरि सुरु हुनासाथ गरिदिनेछौं, नसके रकम फिर्ता गर्नेछौं। कृपया फेरि भुक्तानी नगर्नुहोस्।
purchase-interrupted = माफ गर्नुहोस्, हाम्रो तर्फको समस्याले तपाईंको रिचार्ज पठाउन सकिएन। <b>कुनै रकम काटिएको छैन।</b> फेरि प्रयास गर्नुहोस्।
topup-agents-only = माफ गर्नुहोस्, यो बोटमा रिचार्ज प्रदायकका दर्ता भएका एजेन्टहरूका लागि मात्र हो। आफ्नो प्याकेज नवीकरण गर्न आफ्नो एजेन्ट वा प्रदायकलाई अनुरोध गर्नुहोस्।
store-unavailable = माफ गर्नुहोस्, बोट अहिले अस्थायी रूपमा उपलब्ध छैन। कुनै रकम काटिएको छैन। केही बेरपछि फेरि प्रयास गर्नुहोस्।

## Everywhere

cancelled = रद्द गरियो। फेरि सुरु गर्न /topup पठाउनुहोस्।
cancelled-broadcast = प्रसारण रद्द गरियो: केही पठाइएन। फेरि सुरु गर्न /broadcast पठाउनुहोस्।
nothing-to-cancel = रद्द गर्ने केही छैन। रिचार्ज सुरु गर्न /topup पठाउनुहोस्।
menu-expired = यो मेनुको समय सकियो।
session-expired = यो सत्रको समय सकियो। फेरि सुरु गर्न /topup पठाउनुहोस्।
hint-start = प्याकेज नवीकरण गर्न /topup, वा सुविधाहरू हेर्न /help पठाउनुहोस्।
hint-unknown-command = यो आदेश मलाई थाहा छैन। /help ले सबै आदेश देखाउँछ।
list-more = …र थप { $count }
error-generic = माफ गर्नुहोस्, हाम्रो तर्फबाट केही गडबड भयो। फेरि प्रयास गर्नुहोस्, वा /cancel पठाएर नयाँ सुरु गर्नुहोस्।

## /history

history-title =
    { $count ->
        [one] तपाईंको पछिल्लो रिचार्ज
       *[other] तपाईंका पछिल्ला { $count } रिचार्ज
    }
history-line =
    { $outcome } · { $date }
    { $connection } · { $bouquet } · { $amount }
    कारोबार: { $txnId }
history-payment = भुक्तानी: { $method }
history-payment-paid = भुक्तानी: { $method } · सन्दर्भ { $reference }
history-charged = ✅ सम्पन्न
history-checking = ⏳ जाँच हुँदैछ
history-not-charged = ↩️ शुल्क लागेन
history-declined = ❌ अस्वीकृत, शुल्क लागेन
history-none = यो बटबाट तपाईंको कुनै रिचार्ज छैन। रिचार्ज गर्न /topup पठाउनुहोस्।
history-awaiting-payment = 💳 अझै तिरिएको छैन
history-refund-due = 💸 तिरिएको, टप-अप भएन: फिर्ता बाँकी
history-refunded = 💸 फिर्ता गरियो
command-history = तपाईंका पछिल्ला रिचार्जहरू

## Saved connections

saved-title = आफ्नो कुनै जडान फेरि रिचार्ज गर्नुहोस्, वा अर्को ग्राहकको नम्बर पठाउनुहोस्:
saved-button = { $name } · { $connection }
saved-someone-else = ➕ अर्को ग्राहक
saved-someone-else-hint = मोबाइल नम्बर, ग्राहक आईडी, सेट-टप बक्स नम्बर वा युजरनेम पठाउनुहोस्।
saved-forget = 🗑 यी बिर्सनुहोस्
saved-forgotten = भयो: अब तपाईंका कुनै जडान सम्झिइएका छैनन्, तपाईंले दिनुभएको फोन नम्बर पनि छैन। जडानहरू अर्को रिचार्जपछि फेरि सुरक्षित हुन्छन्, नम्बर फेरि दिएपछि।
command-forget = सुरक्षित जडानहरू र नम्बर बिर्सनुहोस्

## Expiry reminders

remind-button = 🔔 सम्झाउनुहोस्: { $name }
remind-receipt-button = 🔔 सकिनुअघि सम्झाउनुहोस्
reminder-set = 🔔 हामी तपाईंलाई { $dates } मा सम्झाउनेछौं।
reminder-too-late = सम्झाउन मिल्ने समय बाँकी छैन, यो चाँडै सकिन्छ।
reminder-too-many = तपाईंले बढीमा { $count } वटा रिमाइन्डर राख्न सक्नुहुन्छ। पहिले /reminders बाट केही रद्द गर्नुहोस्।
reminder-no-date = सेवा प्रदायकले यसको अन्तिम मिति दिँदैन, त्यसैले सम्झाउन सकिँदैन।
reminder-text = 🔔 तपाईंको प्याकेज <b>{ $bouquet }</b> ({ $connection }) { $end } मा सकिन्छ। जडान कायम राख्न अहिले नवीकरण गर्नुहोस्।
reminder-renew-button = 🔁 { $bouquet } नवीकरण
reminders-title = तपाईंका रिमाइन्डरहरू:
reminders-line = • { $bouquet } ({ $connection }) – { $at }
reminders-none = तपाईंको कुनै रिमाइन्डर छैन। सदस्यताको छेउमा वा रसिदमुनि “🔔 सम्झाउनुहोस्” थिच्नुहोस्।
reminders-cancel-button = ✖ { $bouquet } – { $at }
reminders-cancel-all = ✖ सबै रद्द गर्नुहोस्
reminders-cancelled = रिमाइन्डर रद्द गरियो।
reminders-all-cancelled = तपाईंका सबै रिमाइन्डर रद्द गरिए।
command-reminders = म्याद सकिने रिमाइन्डरहरू
reminder-stats = पठाइएका म्याद रिमाइन्डर: { $sent }। रिमाइन्डरको नवीकरण बटनबाट भएका रिचार्ज: { $renewals }।
# The Mini App's button under /start and the saved connections, and the chat's menu button.
button-open-shop = 🛒 पसल खोल्नुहोस्
menu-button-shop = पसल
# Under a receipt: the Mini App on that connection's packages.
button-renew-in-shop = 🛒 पसलमा नवीकरण
