"""Game rooms: the companion games played at the table, phones as private hands.

Between the games (`controller.games`) and the web: a room is a game session
with seats (people who joined with a one-time code, computer players at a
level, a hot-seat device), a table screen and spectators, undo, and computer
players that take over a seat whose person is away. Rooms are event-sourced
in the table's SQLite file beside the matches (`persist.py`); `protocol.py`
is the one message protocol every device speaks, without any I/O of its own.

Modules: `spec` (what a room is made of), `room` (one room, rebuilt from its
records), `manager` (every room of the table, the computer players, the away
timer), `views` (what each screen is sent), `protocol` (the device protocol),
`persist` (the log), `credentials`, `bots`, `words` (the log in words).
"""
