"""Workers that hit their usage limit: parked, held sends, continued after the reset
(:mod:`.service`), typed into their live session (:mod:`.continuation`), on the account their
environment names (:mod:`.accounts`)."""
