"""`lumente check`: judge an AI's explanation of a concept. The rules of a round
(`rules`: levels, which explanation, the score), the rubric a flagged flaw's reason
is judged by (`rubric`), and the round played (`runner`) and wired from the
workspace (`wiring`). The CLI calls `wiring` and renders the events."""
