"""``gamebox bom``: what to buy for a profile's box, with quantities that follow the profile and the decks."""

from __future__ import annotations

from controller.bom import bill, markdown
from controller.cli import main
from hardware.profile import PROFILES_DIR, load_profile
from tests.conftest import ROOT

PI = (PROFILES_DIR / "pi-reference.toml").read_text(encoding="utf-8")


def items(profile) -> dict[str, tuple[str, str]]:
    return {item.part: (item.quantity, item.note) for item in bill(profile)}


def loaded(tmp_path, text: str):
    path = tmp_path / "kitchen.toml"
    path.write_text(text, encoding="utf-8")
    return load_profile(path)


def test_the_reference_build_s_bill():
    bill_ = items(load_profile("pi-reference"))
    assert bill_["60 mm arcade push button"][0] == "1"
    (reader,) = [part for part in bill_ if part.startswith("PN532")]
    assert bill_[reader][0] == "1" and "mode switches set to SPI" in reader
    strip = bill_["WS2812B strip, 60 pixels a metre, 5 V"]
    assert strip[0] == "1 m"  # 60 pixels at 60 a metre
    assert "sea-route 24 pixels (40 cm), police-track 24 pixels (40 cm), turn-ring 12 pixels (20 cm)" in strip[1]
    assert bill_["5 V 2 A supply"][0] == "1"  # a 1600 mA budget is 80 % of 2 A
    assert "3.6 A" in bill_["5 V 2 A supply"][1] and "1.44 A" in bill_["5 V 2 A supply"][1]
    for part in ("74AHCT125 level shifter", "330 Ω resistor", "1000 µF 6.3 V capacitor"):
        assert bill_[part][0] == "1"
    # hardware/README.md's parts list: 124 stickers for the three games, plus the box's control cards.
    assert bill_["NTAG213 stickers, 25 mm round"] == (
        "124", "one per card: floppy-ears 36, pirates 52, policecats 36; NTAG215/216 work too")
    assert bill_["NTAG213 cards (or a sticker on a blank card each)"][0] == "23"  # 22, and control-pair for the family's page


def test_the_quantities_follow_the_profile(tmp_path):
    text = (PI.replace("pixels = 60", "pixels = 90").replace("brightness = 0.4", "brightness = 0.5")
            .replace("power_budget_ma = 1600", "power_budget_ma = 3000")
            + '\n[readers.side]\ndriver = "pn532"\nbus = "spi"\nspi_port = 1\ncs_pin = 26\n'
            + '\n[buttons.red]\ndriver = "gpio"\npin = 5\n'
            + '\n[puck]\ndriver = "serial"\ndevice = "/dev/serial/by-id/usb-MicroPython*"\n')
    bill_ = items(loaded(tmp_path, text))
    assert bill_["WS2812B strip, 60 pixels a metre, 5 V"][0] == "2 m"  # 90 pixels: one metre and a half
    assert bill_["5 V 4 A supply"][0] == "1"  # 3000 mA is 75 % of 4 A; 90 × 60 mA × 0.5 = 2.7 A at worst
    assert "2.70 A" in bill_["5 V 4 A supply"][1]
    (reader,) = [part for part in bill_ if part.startswith("PN532")]
    assert bill_[reader] == ("2", "reader table, side")
    assert bill_["30 mm arcade push button"] == ("1", "the red button")
    assert bill_["die puck"][0] == "1" and "die puck, optional" not in bill_


def test_a_simulated_box_needs_no_electronics_but_its_cards():
    bill_ = items(load_profile("sim"))
    assert not [part for part in bill_ if "arcade" in part or "PN532" in part or "WS2812B" in part]
    assert bill_["NTAG213 stickers, 25 mm round"][0] == "124"


def test_the_command_prints_it_and_the_readme_parts_list_is_what_the_profile_gives_today(tmp_path, capsys):
    assert main(["bom"]) == 0
    printed = capsys.readouterr().out
    assert printed == markdown(load_profile("pi-reference"))
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- gamebox bom --profile pi-reference -->\n")[1].split("<!-- end of gamebox bom -->")[0]
    assert section == printed, "hardware/README.md's parts list is out of date: gamebox bom, and paste it there"
    assert main(["bom", "--profile", "nosuch"]) == 2
    assert "profile 'nosuch' not found" in capsys.readouterr().err
