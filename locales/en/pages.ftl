# The bot's payment pages in the browser (Khalti's return page, eSewa's pay and return pages):
# what they show beside the payment's news (payments.ftl: khalti-page-*, esewa-page-*).

page-connection = Connection
page-package = Package
page-period = Period
page-price = Price
page-to-pay = To pay
page-esewa-next = The button takes you to eSewa's own page to pay. Then come back to Telegram: the top-up is made as soon as eSewa confirms the payment, and the receipt comes in the chat.
page-esewa-safe = 🔒 Type your eSewa password on eSewa's own page only, never here or in the chat.

# Pages that name no purchase, so no buyer's language: shown in English and Nepali together.
page-not-found-title = Payment not found
page-not-found = This payment page is not known. Go back to Telegram and open the payment from the chat again.
page-invalid-title = Payment answer not verified
