welcome =
    Welcome! I help you renew your TV, internet and IPTV packages.
    Send /topup to start a top-up, or /help to see what I can do.
help =
    /topup – renew a package for a customer id, phone number, set-top box or internet username
    /cancel – leave the current step
    /language – choose your language
    /help – this message
