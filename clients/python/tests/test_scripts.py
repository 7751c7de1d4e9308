"""The package ships the build's assembled scripts unchanged, all of them, of its contract."""
import os
import zipfile
from pathlib import Path

import tollgate
from conftest import PACKAGE, ROOT
from tollgate.scripts import SCRIPT_DIR, USED, packaged


def build_scripts():
    folder = Path(os.environ.get("TOLLGATE_LUA_DIR", ROOT / "build" / "lua"))
    found = {p.name: p.read_bytes() for p in folder.glob("*.lua")}
    assert "hit.lua" in found, f"no assembled scripts in {folder}"
    return found


def test_the_wheel_holds_exactly_the_builds_scripts(wheel_file):
    with zipfile.ZipFile(wheel_file) as wheel:
        shipped = {Path(n).name: wheel.read(n) for n in wheel.namelist()
                   if n.startswith("tollgate/lua/") and n.endswith(".lua")}
    assert shipped == build_scripts()


def test_the_package_folder_holds_exactly_the_builds_scripts():
    copy = {p.name: p.read_bytes() for p in (PACKAGE / "src" / "tollgate" / "lua").glob("*.lua")}
    assert copy == build_scripts()


def test_every_script_follows_the_clients_contract():
    assert set(USED) <= set(packaged())
    for script in packaged().values():
        assert f"Contract: {tollgate.CONTRACT}".encode() in script.source, script.name
    assert SCRIPT_DIR.parent.joinpath("py.typed").exists()
