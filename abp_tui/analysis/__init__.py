"""From a design's records to final verdicts, results and agreement: one set of rules.

The database (through :func:`abp_tui.store.judging.records_of_design`) and a publication bundle
(through :mod:`abp_tui.export.bundle_analysis`, which ``verify`` runs with no database) both hold
the same records (:mod:`abp_tui.models.records`: runs by id, items by blind code) and call the
same functions:

- :mod:`.records`: which of the records count: each reviewer's latest submitted
  revision of an item for verdicts, disagreements, preferences and position bias, their first
  submitted revision for agreement; an item's latest adjudication; the one translation between
  screen positions (Response 1 / 2) and runs;
- :mod:`.verdicts`: disagreements under the design's rules, the final human verdict of every
  judged run (adjudicated, unanimous, single review, unresolved) and of every judged pair's
  preference (:mod:`.item_preferences`), and the outcome that counts for each run (a human
  verdict, else automated verification, else the record's state, else unjudged);
- :mod:`.results`: tallies by condition and by task, paired comparisons with preferences (each
  pair once, by its final preference) and efficiency, position bias, and the headline that
  answers the design's question (:mod:`.headline`);
- :mod:`.agreement`: the records, levels and scales the agreement statistics run on.

Nothing here reads the database, a file or the clock, and nothing imports the UI. Records and
verdicts import no numerical library, so the store and the review screens stay quick to load.
"""
