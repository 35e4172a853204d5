## Alerts to admins and support groups about the provider

alert-token-refused =
    ⚠️ <b>Top-ups are paused: the provider refuses our token</b> (HTTP 401/403).
    Check PROVIDER_TOKEN and restart the bot. Users are told that top-ups are paused.
alert-down =
    ⚠️ <b>Top-ups are paused: the provider is not answering</b> ({ $failures } calls in a row failed).
    Users are told to try again later; the bot tries again every { $probe } seconds.
alert-recovered = ✅ <b>The provider answers again</b>: top-ups are back.
