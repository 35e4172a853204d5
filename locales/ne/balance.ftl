## प्रदायकमा ब्यालेन्स (प्रशासक)

command-balance = प्रदायक ब्यालेन्स: अपेक्षित, जम्मा, रिडिङ
balance-expected = 💰 प्रदायकमा अपेक्षित ब्यालेन्स: { $amount }
balance-no-reading = प्रदायकको पोर्टलको कुनै रिडिङ अझै रेकर्ड गरिएको छैन (० बाट गनिएको)।
balance-last-reading = अन्तिम रिडिङ: { $amount } ({ $at })
balance-since = त्यसपछि: जम्मा { $deposits }, चार्ज गरिएका टप-अप { $charged }
balance-recorded-deposit = { $amount } जम्मा रेकर्ड गरियो।
balance-recorded-reading = { $amount } को रिडिङ रेकर्ड गरियो।
balance-bad-amount = रेकर्ड गरिएन: रकम बढीमा { $digits } दशमलव अङ्क भएको धनात्मक सङ्ख्या हुनुपर्छ, जस्तै /balance add 50000 bank transfer वा /balance set 123456.50
balance-usage = /balance, /balance add रकम टिप्पणी वा /balance set रकम प्रयोग गर्नुहोस्।
