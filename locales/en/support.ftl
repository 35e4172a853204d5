## Support staff: /lookup, /txn and /recent in the support group chats

support-only = This command is for support staff and works only in the support group.
support-lookup-usage = Send <code>/lookup</code> followed by a mobile number, customer ID, set-top-box number or internet username, for example <code>/lookup 1000001</code>.
support-code-invalid = That does not look like a mobile number, customer ID, set-top-box number or username.
support-customer-not-found = No customer found for <code>{ $code }</code>.
support-unavailable = Sorry, the provider's service is not available right now. Please try again in a few minutes.
support-error = Sorry, something went wrong on our side. Please try again.

## The customer card

support-card-header =
    <b>{ $name }</b>
    Customer { $cuid } · { $status }
support-no-connections = No connections.
support-subscriptions-failed = ⚠️ The subscriptions of this connection could not be loaded.
support-checked = <i>Checked { $time }</i>
support-button-refresh = 🔄 Refresh
support-card-expired = This card can no longer be refreshed. Send /lookup again.
support-refreshing = Refreshing…

## Transactions and the latest top-ups

support-state-done = ✅ done
support-state-pending = ⏳ pending
support-state-not-charged = ↩️ not charged
support-state-failed = ❌ failed
support-state-awaiting-payment = 💳 awaiting payment
support-state-refund-due = 💸 paid, refund due
support-state-refunded = 💸 refunded
support-txn-usage = Send <code>/txn</code> followed by the transaction ID on the customer's receipt, a checkout ID or one of our references, for example <code>/txn tg123-abc1</code>.
support-txn-title = <b>Transaction</b>
support-field-txn-id = Transaction ID: <code>{ $value }</code>
support-field-order-id = Order ID: <code>{ $value }</code>
support-field-customer-id = Customer ID: { $value }
support-field-connection = Connection: { $value }
support-field-bouquet = Package: { $value }
support-field-amount-bold = Amount: <b>{ $value }</b>
support-field-date = Date: { $value }
support-field-provider-status = Provider status: { $value }
support-txn-journal = Through the bot: { $state }
support-reference = reference <code>{ $reference }</code>
support-journal-title = <b>Top-up through the bot</b>: { $state }
support-field-reference = Reference: <code>{ $value }</code>
support-field-checkout-id = Checkout ID: <code>{ $value }</code>
support-field-amount = Amount: { $value }
support-field-started = Started: { $value }
support-payment = Payment: { $method }
support-payment-paid = Payment: { $method } · { $references }
support-txn-not-at-provider = The provider has no transaction for this top-up.
support-txn-unconfirmed = The provider could not be asked about this top-up right now. Please try again in a few minutes.
support-txn-not-found = No transaction found for <code>{ $query }</code>.
support-recent-title = <b>Latest top-ups through the bot</b>
support-recent-title-for = <b>Latest top-ups through the bot for { $code }</b>
support-recent-none = No top-ups through the bot yet.
support-recent-none-for = No top-ups through the bot for <code>{ $code }</code>.
support-recent-customer = customer { $cuid }

## Who may use the staff commands

staff-only = Only support staff may use this command. Ask an admin to add you to the staff.
staff-refunds-only = Only the people who make refunds may mark a refund done. Ask an admin.
staff-send-as-yourself = Staff commands need to know who sent them: please send it as yourself, not anonymously or as a channel.
staff-own-messages-only = Nothing was done: staff commands are taken only from your own messages, never from a forwarded message or one sent through an inline bot. Type the command yourself if you mean it.
