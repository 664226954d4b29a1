"""The pure rules engine of Last Gasp: no Discord, no database, no clock, no global random.

Every action takes the current sheet (and the guild settings and a random source where the rule
needs them) and returns an `Outcome` with the new sheet, or raises `RuleError` and changes nothing.
The modules, leaves first: `errors`, `names`, `rolls`, `notation`, `models`, `outcome`,
`emotion_texts`, `dice`, `condition`, then one module per theme: `vitality`, `stamina`,
`emotions`, `table`, `sheet_ops`, `history`, `permissions`, `odds`.
"""
