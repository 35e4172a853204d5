# The bot's payment pages in the browser (Khalti's return page, eSewa's pay and return pages):
# what they show beside the payment's news (payments.ftl: khalti-page-*, esewa-page-*).

page-connection = जडान
page-package = प्याकेज
page-period = अवधि
page-price = मूल्य
page-to-pay = तिर्नुपर्ने रकम
page-esewa-next = बटनले तपाईंलाई तिर्न इसेवाकै पृष्ठमा लैजान्छ। त्यसपछि Telegram मा फर्कनुहोस्: इसेवाले भुक्तानी पुष्टि गर्नासाथ टप-अप गरिन्छ, र रसिद च्याटमा आउँछ।
page-esewa-safe = 🔒 आफ्नो इसेवा पासवर्ड इसेवाकै पृष्ठमा मात्र लेख्नुहोस्, यहाँ वा च्याटमा कहिल्यै होइन।

# Pages that name no purchase, so no buyer's language: shown in English and Nepali together.
page-not-found-title = भुक्तानी फेला परेन
page-not-found = यो भुक्तानी पृष्ठ चिनिएन। Telegram मा फर्कनुहोस् र च्याटबाट भुक्तानी फेरि खोल्नुहोस्।
page-invalid-title = भुक्तानीको जवाफ प्रमाणित भएन
