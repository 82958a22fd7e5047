"""The table configuration file: valid files load, bad ones name file, key and reason."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.config import default_config, load_config, parse_config
from controller.errors import ConfigError
from controller.knapp.events import TieRule, Variant

ROOT = Path(__file__).resolve().parents[1]


def test_example_file_loads() -> None:
    cfg = load_config(ROOT / "examples" / "table.toml")
    assert cfg.seats == ("Ada", "Ben", "Cleo", "Dag")
    assert cfg.seats[cfg.first_turner] == "Cleo"
    assert cfg.rules.tie_rule is TieRule.REDEAL
    assert cfg.rules.tie_min_ns == 2_000_000
    assert cfg.rules.card_timeout_ns == 10_000_000_000


def test_defaults() -> None:
    cfg = default_config()
    assert len(cfg.seats) == 3 and cfg.rules.target == 5
    assert cfg.rules.variant is Variant.STANDARD
    assert cfg.rules.anticipation_ns == 250_000_000


def test_values_are_converted() -> None:
    cfg = parse_config(tomllib.loads(
        '[match]\nvariant = "unruly"\ntarget = 0\nseed = 7\n'
        '[timing]\ntie_min_ms = 3.5\ntie_rule = "box"\ncollection_window_ms = 250\n'))
    assert cfg.rules.variant is Variant.UNRULY and cfg.rules.target == 0
    assert cfg.rules.tie_min_ns == 3_500_000 and cfg.rules.tie_rule is TieRule.BOX
    assert cfg.rules.collection_window_ns == 250_000_000 and cfg.seed == 7


@pytest.mark.parametrize(("text", "key", "reason"), [
    ('[table]\nseats = ["a"]', "table.seats", "needs 2 to 8 seats, got 1"),
    ('[table]\nseats = ["a", "b", "a"]', "table.seats[2]", "duplicate seat name 'a'"),
    ("[table]\nseats = [1, 2]", "table.seats[0]", "expected a name (string)"),
    ('[table]\nname = ""', "table.name", "must not be empty"),
    ('[table]\nfirst_turner = "Zed"', "table.first_turner", "is not one of the seats"),
    ("[match]\ntargte = 3", "match.targte", "unknown key (did you mean 'target'?)"),
    ("[match]\ntarget = 99", "match.target", "must be between 0 and 60, got 99"),
    ('[match]\nvariant = "wild"', "match.variant", "must be one of standard, unruly"),
    ('[match]\ntarget = "five"', "match.target", "expected an integer, got a string"),
    ("[match]\nseed = -1", "match.seed", "must be 0 or more, got -1"),
    ("[match]\nseed = 1.5", "match.seed", "expected an integer, got a number"),
    ("[timing]\nanticipation_ms = true", "timing.anticipation_ms", "expected a number"),
    ("[timing]\ncard_timeout_s = 0", "timing.card_timeout_s", "must be between 1 and 600"),
    ('[timing]\ntie_rule = "coin"', "timing.tie_rule", "must be one of redeal, box, earlier"),
    ("[tabel]\nname = 'x'", "tabel", "unknown section (did you mean 'table'?)"),
    ("table = 3", "table", "must be a table, got an integer"),
])
def test_bad_values_name_file_key_and_reason(tmp_path: Path, text: str, key: str,
                                             reason: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert err.value.key == key
    assert reason in err.value.reason
    assert str(err.value).startswith(f"{path}: {key}: ")


def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nname=")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(binary)
