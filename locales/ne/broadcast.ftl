## Announcements for subscribers

button-unsubscribe = 🔕 सूचना बन्द गर्नुहोस्
unsubscribed = अब तपाईंलाई सूचनाहरू पठाइने छैन। फेरि पाउन /start पठाउनुहोस्।
plans-title = हाम्रा { $service } प्लानहरू
plans-footer = प्याकेज नवीकरण गर्न /topup पठाउनुहोस्।

## Admin broadcasts

not-allowed = माफ गर्नुहोस्, यो आदेश प्रशासकहरूका लागि मात्र हो।
command-broadcast = ग्राहकहरूलाई सूचना पठाउनुहोस्
command-plans = ग्राहकको जडानका प्लानहरूको सूचना
command-broadcast_cancel = चलिरहेको प्रसारण रोक्नुहोस्
command-reminder_stats = पठाइएका रिमाइन्डर र त्यसपछिका नवीकरण
broadcast-ask-message = पठाउने सन्देश पठाउनुहोस्: टेक्स्ट (फर्म्याटिङसहित) वा क्याप्सनसहितको फोटो। रोक्न /cancel।
broadcast-ask-audience = कसलाई पठाउने?
audience-everyone = सबैलाई
audience-english = अंग्रेजी भाषीलाई
audience-nepali = नेपाली भाषीलाई
audience-tv = टिभी ग्राहकलाई
audience-internet = इन्टरनेट ग्राहकलाई
audience-iptv = आईपीटिभी ग्राहकलाई
broadcast-audience-empty = यो समूहमा ({ $audience }) अहिलेसम्म कोही छैन, पठाउने कोही छैन। अर्को प्रापक समूह छान्नुहोस्, वा /cancel।
broadcast-confirm = माथि प्रिभ्यु छ, प्रापकहरूले ठ्याक्कै यस्तै देख्नेछन्, तल “🔕 सूचना बन्द गर्नुहोस्” बटनसहित। { $count } ग्राहकलाई ({ $audience }) पठाउने?
button-send = ✅ पठाउनुहोस्
broadcast-not-sent = पठाइएन।
broadcast-progress = पठाउँदै… { $sent } पठाइयो, { $failed } असफल, { $blocked } ले बोट ब्लक गरे, { $total } मध्ये { $remaining } बाँकी।
broadcast-done = प्रसारण सकियो: { $total } मध्ये { $sent } पठाइयो, { $failed } असफल, { $blocked } ले बोट ब्लक गरे।
broadcast-cancelled = प्रसारण रद्द भयो: { $total } मध्ये { $sent } पठाइयो, { $failed } असफल, { $blocked } ले बोट ब्लक गरे, { $remaining } पठाइएन।
broadcast-cancelling = प्रसारण रोकिँदैछ… अन्तिम विवरण आउँदैछ।
broadcast-none-running = कुनै प्रसारण चलिरहेको छैन।
plans-usage = /plans पछि सन्दर्भ ग्राहकको कोड पठाउनुहोस्, जस्तै /plans 1000001।
plans-not-found = त्यो कोडमा कुनै ग्राहक भेटिएन।
