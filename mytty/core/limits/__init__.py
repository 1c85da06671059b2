"""Usage limits: what a provider said about one (:mod:`.facts`), whose account it hit
(:mod:`.account`), and a parked job's park with the rules that decide when mytty continues it
(:mod:`.park`). Pure: times and environments come in as arguments."""
