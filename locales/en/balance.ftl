## The provider balance (admins)

command-balance = Provider balance: expected, deposits, readings
balance-expected = 💰 Expected balance at the provider: { $amount }
balance-no-reading = No reading of the provider's portal recorded yet (counted from 0).
balance-last-reading = Last reading: { $amount } ({ $at })
balance-since = Since then: deposits { $deposits }, top-ups charged { $charged }
balance-recorded-deposit = Deposit of { $amount } recorded.
balance-recorded-reading = Reading of { $amount } recorded.
balance-bad-amount = Not recorded: the amount must be a positive number with at most { $digits } decimals, e.g. /balance add 50000 bank transfer or /balance set 123456.50
balance-usage = Use /balance, /balance add AMOUNT NOTE or /balance set AMOUNT.
