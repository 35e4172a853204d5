// The playground page's own words, in English and Nepali: they follow the language switch, as
// a Telegram client's follow its language. What the bot says comes from the bot. Placeholders
// are "{name}"; rich() puts elements (a command, a button's name) in their place.

const LANGUAGES = ["en", "ne"];

const en = {
  "page.title": "{bot} · offline playground",
  brand: "Playground",
  "language.label": "Language",
  "language.title": "The language of the people's Telegram",
  "language.changed": "Everyone now uses Telegram in English",
  "nav.label": "Act as",
  "role.user": "Subscriber",
  "role.support": "Support group",
  "role.admin": "Admin",
  "idle.user": "Asha, chatting with the bot",
  "idle.support": "Sam in the support desk",
  "idle.admin": "Broadcasts, plans and reports",
  "guide.title": "Try it",
  "guide.user":
    "{who} send {topup}, tap “📱 Share my phone number”, pick a connection, a period and a package, then {pay}.",
  "guide.support": "{who} {lookup}, {recent}.",
  "guide.admin": "{who} {plans}, {broadcast}, {report}, {balance}.",
  "guide.menu":
    "The {menu} button lists each role's commands; a code in the side panel goes into the message box with a tap.",
  "guide.menuName": "/ Menu",
  "guide.pay.all":
    "“🟢 Pay with eSewa”, “📱 Pay with Khalti”, “🔳 Pay with Fonepay QR” or “💳 Pay by card”, then pay on that sandbox's page (for eSewa through the bot's page; for Fonepay the QR's page on the Fonepay sandbox, the bank app) or with the test card; another button switches method",
  "guide.pay.telegram": "“💳 Pay”, and pay the invoice with the test card",
  "guide.pay.khalti": "“💳 Pay”, then “Pay … with Khalti” and Pay on the Khalti sandbox's page",
  "guide.pay.esewa":
    "“💳 Pay”, then “Pay … with eSewa”, “Pay with eSewa” on the bot's page and Pay on the eSewa sandbox's page",
  "guide.pay.fonepay":
    "“💳 Pay”: the QR comes in the chat; pay it on the Fonepay sandbox's page (the bank app: its address is in the terminal)",
  "guide.pay.none": "“✅ Confirm and pay”",
  footer: "Everything runs offline: the provider sandbox, a Telegram emulator and the real bot.",
  "status.bot": "bot",
  "status.online": "online",
  "status.connecting": "connecting…",
  "status.reconnecting": "reconnecting…",
  "status.typing": "typing…",
  "status.botTyping": "{bot} is typing…",
  "status.group": "{bot}, {name} · group",
  "status.you": "you",
  "panel.toggle": "Sandbox",
  "messages.label": "Messages",
  "menu.label": "Commands",
  "menu.button": "Menu",
  "composer.label": "Message",
  "composer.placeholder": "Message",
  "keyboard.toggle": "Show or hide the bot's keyboard",
  "keyboard.name": "Bot keyboard",
  "send.label": "Send",
  "send.title": "Send (Enter)",
  "panel.label": "Provider sandbox",
  "panel.title": "Provider sandbox",
  "panel.api": "Provider API version",
  "panel.close": "Close the sandbox panel",
  "topups.title": "Provider top-ups",
  "topups.empty":
    "No top-ups yet. Finish a purchase in the chat and the provider's record shows up here.",
  "topup.customer": "Customer",
  "topup.connection": "Connection",
  "topup.date": "Date",
  "topup.api": "API",
  "topup.order": "Order",
  "customers.title": "Test customers",
  "customers.hint": "Tap a code to paste it into the message box.",
  "customers.phone": "Asha's phone",
  "customers.phoneTitle": "“Share my phone number” sends this number",
  "code.title": "{label}: paste {code} into the message box",
  "code.customer": "Customer ID",
  "code.mobile": "Mobile number",
  "code.connection": "{service} connection ({status})",
  "status.active": "active",
  "status.inactive": "inactive",
  "status.suspended": "suspended",
  "status.success": "success",
  "alert.ok": "OK",
  "message.photo": "Photo",
  "message.contact": "Shared contact",
  "message.edited": "edited",
  "message.read": "read",
  "message.buttons": "Buttons",
  "message.notAvailable": "Not available in the playground",
  "message.send": "Send {command}",
  "message.document": "File",
  "message.download": "Download {name}",
  "message.openPhoto": "Open the photo",
  "invoice.paid": "✓ Paid",
  "invoice.paidTitle": "This invoice is paid",
  "invoice.payTitle": "Opens the payment form",
  "invoice.tagTest": "Test",
  "invoice.tagPaid": "Paid",
  "payment.you": "You successfully transferred {amount} to {bot}",
  "payment.other": "{who} successfully transferred {amount} to {bot}",
  "preview.paid": "💳 Paid {amount}",
  "badge.unread": "{count} unread",
  "empty.supportTitle": "Support desk",
  "empty.supportText": "A group of support staff with the bot in it. Look a customer up:",
  "empty.title": "What can this bot do?",
  "empty.admin":
    "As an admin you broadcast announcements and plan information to subscribers, and read the finance reports.",
  "empty.user": "Renew your TV, internet and IPTV packages in a minute, right here in the chat.",
  "empty.start": "Start",
  "command.lookup": "A customer's card, by any code",
  "command.txn": "A provider transaction, by checkout id or reference",
  "command.recent": "The last top-ups made through the bot",
  "toast.notSent": "Not sent: {reason}",
  "toast.noChat": "Could not load the chat: {reason}",
  "toast.noAnswer": "The playground is not answering: {reason}",
  "toast.withdrawn": "The invoice was withdrawn: nothing to pay",
  "checkout.title": "Checkout",
  "checkout.test": "Test mode",
  "checkout.card": "Card number",
  "checkout.expiry": "Expiry",
  "checkout.expiryPlaceholder": "MM/YY",
  "checkout.cvc": "CVC",
  "checkout.cancel": "Cancel",
  "checkout.pay": "Pay {amount}",
  "checkout.hint":
    "No real money: {paying} pays, {declined} is declined. Any expiry to come and any CVC will do.",
  "checkout.checkExpiry": "Check the expiry date (MM/YY).",
  "checkout.checkCvc": "Check the CVC.",
  "checkout.declined": "Your card was declined. Nothing was charged.",
  "checkout.invalidCard": "Your card number is incorrect.",
  "checkout.refused": "The bot refused this payment. Nothing was charged.",
  "checkout.timeout": "The bot did not confirm the payment in time. Nothing was charged.",
  "checkout.unavailable": "This invoice cannot be paid: {reason}.",
  "checkout.failed": "The payment did not go through: {reason}",
};

/** Nepali: the same keys (a test of the page keeps the two lists equal). */
const ne = {
  "page.title": "{bot} · अफलाइन प्लेग्राउन्ड",
  brand: "प्लेग्राउन्ड",
  "language.label": "भाषा",
  "language.title": "यहाँका मानिसहरूको टेलिग्रामको भाषा",
  "language.changed": "सबैले अब टेलिग्राम नेपालीमा चलाउँछन्",
  "nav.label": "कसको रूपमा चलाउने",
  "role.user": "ग्राहक",
  "role.support": "सहायता समूह",
  "role.admin": "एडमिन",
  "idle.user": "आशा, बटसँग कुराकानी गर्दै",
  "idle.support": "सहायता डेस्कमा साम",
  "idle.admin": "प्रसारण, योजना र प्रतिवेदन",
  "guide.title": "चलाएर हेर्नुहोस्",
  "guide.user":
    "{who} {topup} पठाउनुहोस्, “📱 मेरो फोन नम्बर दिनुहोस्” थिच्नुहोस्, जडान, अवधि र प्याकेज छान्नुहोस्, अनि {pay}।",
  "guide.support": "{who} {lookup}, {recent}।",
  "guide.admin": "{who} {plans}, {broadcast}, {report}, {balance}।",
  "guide.menu": "{menu} बटनले हरेक भूमिकाका आदेशहरू देखाउँछ; छेउको प्यानलको कोड थिच्दा त्यो सन्देश बाकसमा जान्छ।",
  "guide.menuName": "/ मेनु",
  "guide.pay.all":
    "“🟢 इसेवाबाट तिर्नुहोस्”, “📱 खल्तीबाट तिर्नुहोस्”, “🔳 फोनपे QR बाट तिर्नुहोस्” वा “💳 कार्डबाट तिर्नुहोस्” थिचेर त्यसको स्यान्डबक्स पेजमा (इसेवाका लागि बटको पेज हुँदै; फोनपेका लागि फोनपे स्यान्डबक्सको QR पेज, बैंकको एप) वा परीक्षण कार्डले तिर्नुहोस्; अर्को बटनले भुक्तानीको तरिका बदल्छ",
  "guide.pay.telegram": "“💳 … तिर्नुहोस्” थिचेर परीक्षण कार्डले बिल तिर्नुहोस्",
  "guide.pay.khalti":
    "“💳 … तिर्नुहोस्”, अनि “💳 खल्तीबाट … तिर्नुहोस्” थिचेर खल्ती स्यान्डबक्सको पेजमा तिर्नुहोस्",
  "guide.pay.esewa":
    "“💳 … तिर्नुहोस्”, अनि “💳 इसेवाबाट … तिर्नुहोस्”, बटको पेजमा “इसेवाबाट तिर्नुहोस्” थिचेर इसेवा स्यान्डबक्सको पेजमा तिर्नुहोस्",
  "guide.pay.fonepay":
    "“💳 … तिर्नुहोस्”: QR च्याटमा आउँछ; त्यसलाई फोनपे स्यान्डबक्सको पेजमा (बैंकको एप: ठेगाना टर्मिनलमा छ) तिर्नुहोस्",
  "guide.pay.none": "“✅ पुष्टि गरी भुक्तानी गर्नुहोस्” थिच्नुहोस्",
  footer: "सबै कुरा अफलाइन चल्छ: प्रदायकको स्यान्डबक्स, टेलिग्राम इमुलेटर र साँच्चैको बट।",
  "status.bot": "बट",
  "status.online": "अनलाइन",
  "status.connecting": "जोडिँदै…",
  "status.reconnecting": "फेरि जोडिँदै…",
  "status.typing": "टाइप गर्दै…",
  "status.botTyping": "{bot} टाइप गर्दै…",
  "status.group": "{bot}, {name} · समूह",
  "status.you": "तपाईं",
  "panel.toggle": "स्यान्डबक्स",
  "messages.label": "सन्देशहरू",
  "menu.label": "आदेशहरू",
  "menu.button": "मेनु",
  "composer.label": "सन्देश",
  "composer.placeholder": "सन्देश",
  "keyboard.toggle": "बटको किबोर्ड देखाउनुहोस् वा लुकाउनुहोस्",
  "keyboard.name": "बटको किबोर्ड",
  "send.label": "पठाउनुहोस्",
  "send.title": "पठाउनुहोस् (Enter)",
  "panel.label": "प्रदायकको स्यान्डबक्स",
  "panel.title": "प्रदायकको स्यान्डबक्स",
  "panel.api": "प्रदायकको API संस्करण",
  "panel.close": "स्यान्डबक्स प्यानल बन्द गर्नुहोस्",
  "topups.title": "प्रदायकका रिचार्जहरू",
  "topups.empty": "अहिलेसम्म कुनै रिचार्ज छैन। च्याटमा एउटा खरिद पूरा गर्नुहोस्, प्रदायकको अभिलेख यहाँ देखिन्छ।",
  "topup.customer": "ग्राहक",
  "topup.connection": "जडान",
  "topup.date": "मिति",
  "topup.api": "API",
  "topup.order": "अर्डर",
  "customers.title": "परीक्षण ग्राहकहरू",
  "customers.hint": "कोड थिच्नुहोस्, त्यो सन्देश बाकसमा जान्छ।",
  "customers.phone": "आशाको फोन",
  "customers.phoneTitle": "“मेरो फोन नम्बर दिनुहोस्” ले यही नम्बर पठाउँछ",
  "code.title": "{label}: {code} सन्देश बाकसमा राख्नुहोस्",
  "code.customer": "ग्राहक आईडी",
  "code.mobile": "मोबाइल नम्बर",
  "code.connection": "{service} जडान ({status})",
  "status.active": "सक्रिय",
  "status.inactive": "निष्क्रिय",
  "status.suspended": "निलम्बित",
  "status.success": "सफल",
  "alert.ok": "ठीक छ",
  "message.photo": "फोटो",
  "message.contact": "साझा गरिएको सम्पर्क",
  "message.edited": "सम्पादित",
  "message.read": "पढियो",
  "message.buttons": "बटनहरू",
  "message.notAvailable": "प्लेग्राउन्डमा उपलब्ध छैन",
  "message.send": "{command} पठाउनुहोस्",
  "message.document": "फाइल",
  "message.download": "{name} डाउनलोड गर्नुहोस्",
  "message.openPhoto": "फोटो खोल्नुहोस्",
  "invoice.paid": "✓ तिरियो",
  "invoice.paidTitle": "यो बिल तिरिसकिएको छ",
  "invoice.payTitle": "भुक्तानी फारम खोल्छ",
  "invoice.tagTest": "परीक्षण",
  "invoice.tagPaid": "तिरियो",
  "payment.you": "तपाईंले {bot} लाई {amount} सफलतापूर्वक पठाउनुभयो",
  "payment.other": "{who} ले {bot} लाई {amount} सफलतापूर्वक पठाउनुभयो",
  "preview.paid": "💳 {amount} तिरियो",
  "badge.unread": "{count} नपढिएका",
  "empty.supportTitle": "सहायता डेस्क",
  "empty.supportText": "बट भएको सहायता कर्मचारीहरूको समूह। एउटा ग्राहक खोज्नुहोस्:",
  "empty.title": "यो बटले के गर्न सक्छ?",
  "empty.admin":
    "एडमिनको रूपमा तपाईं ग्राहकहरूलाई सूचना र योजनाको जानकारी पठाउनुहुन्छ, र आर्थिक प्रतिवेदन हेर्नुहुन्छ।",
  "empty.user": "आफ्नो टिभी, इन्टरनेट र आईपीटिभी प्याकेज यहीँ च्याटमै एक मिनेटमा नवीकरण गर्नुहोस्।",
  "empty.start": "सुरु गर्नुहोस्",
  "command.lookup": "कुनै पनि कोडबाट ग्राहकको विवरण",
  "command.txn": "चेकआउट आईडी वा सन्दर्भबाट प्रदायकको कारोबार",
  "command.recent": "बटबाट भएका पछिल्ला रिचार्जहरू",
  "toast.notSent": "पठाइएन: {reason}",
  "toast.noChat": "च्याट खुलेन: {reason}",
  "toast.noAnswer": "प्लेग्राउन्डले जवाफ दिएन: {reason}",
  "toast.withdrawn": "बिल फिर्ता लिइयो: तिर्नुपर्ने केही छैन",
  "checkout.title": "भुक्तानी",
  "checkout.test": "परीक्षण मोड",
  "checkout.card": "कार्ड नम्बर",
  "checkout.expiry": "म्याद",
  "checkout.expiryPlaceholder": "MM/YY",
  "checkout.cvc": "CVC",
  "checkout.cancel": "रद्द गर्नुहोस्",
  "checkout.pay": "{amount} तिर्नुहोस्",
  "checkout.hint":
    "साँचो पैसा होइन: {paying} ले तिर्छ, {declined} अस्वीकार हुन्छ। आउने जुनसुकै म्याद र जुनसुकै CVC चल्छ।",
  "checkout.checkExpiry": "म्याद (MM/YY) जाँच्नुहोस्।",
  "checkout.checkCvc": "CVC जाँच्नुहोस्।",
  "checkout.declined": "तपाईंको कार्ड अस्वीकार भयो। कुनै रकम काटिएको छैन।",
  "checkout.invalidCard": "तपाईंको कार्ड नम्बर मिलेन।",
  "checkout.refused": "बटले यो भुक्तानी अस्वीकार गर्‍यो। कुनै रकम काटिएको छैन।",
  "checkout.timeout": "बटले समयमै भुक्तानी पुष्टि गरेन। कुनै रकम काटिएको छैन।",
  "checkout.unavailable": "यो बिल तिर्न मिल्दैन: {reason}।",
  "checkout.failed": "भुक्तानी हुन सकेन: {reason}",
};

export const TEXTS = { en, ne };

let current = "en";

/** The page's language ("en" or "ne"). */
export function pageLanguage() {
  return current;
}

export function setPageLanguage(language) {
  current = LANGUAGES.includes(language) ? language : "en";
}

/** The text of `key` in the page's language, with its placeholders filled. */
export function t(key, values = {}) {
  const text = TEXTS[current][key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    name in values ? String(values[name]) : whole,
  );
}

/** A label the page knows for `value` (a status), else the value itself. */
export function labelOf(prefix, value) {
  const key = `${prefix}.${value}`;
  return key in TEXTS[current] ? t(key) : String(value);
}

/** The text of `key` as nodes: each placeholder given as a node is put in its place. */
export function rich(key, nodes = {}) {
  const fragment = document.createDocumentFragment();
  const text = TEXTS[current][key] ?? TEXTS.en[key] ?? key;
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    fragment.append(text.slice(last, match.index));
    const node = nodes[match[1]];
    fragment.append(node === undefined ? match[0] : node);
    last = match.index + match[0].length;
  }
  fragment.append(text.slice(last));
  return fragment;
}

/**
 * The page's fixed words: `data-i18n` puts the text in the element, `data-i18n-<attribute>`
 * (aria-label, title, placeholder) in that attribute.
 */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const attribute of ["aria-label", "title", "placeholder"]) {
    for (const element of root.querySelectorAll(`[data-i18n-${attribute}]`)) {
      element.setAttribute(attribute, t(element.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  document.documentElement.lang = current;
}
