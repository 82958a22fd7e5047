"""How sure the camera is of a seat: a probability, and when to ask the table instead.

`ASK_BELOW` is the line under which the referee asks the table "who took
it?" rather than take the camera's word: a wrong seat given with confidence
is the worst outcome the product can produce, a question costs a tap.
"""

from __future__ import annotations

ASK_BELOW = 0.9
