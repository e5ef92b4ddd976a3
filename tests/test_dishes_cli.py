"""`python -m app dishes add|list|remove` and `python -m app batch --user`: a user's dishes from
the command line, and the batch tool's predictions naming them."""

from __future__ import annotations

import json

import pytest
from batch_support import photo, read_csv, tiny_model, write_csv
from PIL import Image

from app.__main__ import main


@pytest.fixture
def database(tmp_path, small_seed, monkeypatch):
    """A SQLite file on the small test seed; the commands' init_db keeps to that seed."""
    from db import service, session

    url = f"sqlite:///{tmp_path / 'dishes.db'}"
    session.configure(url)
    real_init = session.init_db
    monkeypatch.setattr(session, "init_db", lambda **kw: real_init(seed_dir=small_seed))
    session.init_db()
    service.create_user("carol")
    service.create_user("dave")
    yield url
    session.configure(None)


def plain(path, colour: tuple[int, int, int]):
    """A plate of one colour: far apart in any model's embedding, however its weights fell."""
    Image.new("RGB", (48, 40), colour).save(path, "JPEG", quality=95)
    return path


def test_dishes_add_list_remove_and_batch_names_the_dish(tmp_path, database, capsys):
    model = str(tiny_model(tmp_path, seed=0))
    plates = [plain(tmp_path / "plate0.jpg", (200, 40, 30)), plain(tmp_path / "plate1.jpg", (190, 50, 40)),
              plain(tmp_path / "plate2.jpg", (20, 40, 200))]
    assert main(["dishes", "add", "carol", "Sunday pie", "--food", "banana", *map(str, plates[:2]),
                 "--model", model, "--db-url", database]) == 0
    assert "dish 'Sunday pie' (Banana) of 'carol': 2 photos" in capsys.readouterr().out
    assert main(["dishes", "add", "carol", "Coffee", "--food", "espresso", str(plates[2]), "--model", model]) == 0
    capsys.readouterr()
    assert main(["dishes", "list", "carol", "--json", "--model", model]) == 0
    listed = {d["dish"]: d for d in json.loads(capsys.readouterr().out)}
    assert {name: (d["food"], d["photos"]) for name, d in listed.items()} == {
        "Coffee": ("Espresso", 1), "Sunday pie": ("Banana", 2)}
    # Each pie photo is recognised from the rest; Coffee's one photo has nothing to be tried against.
    assert listed["Sunday pie"]["held_out_tried"] == 2 and listed["Sunday pie"]["held_out_recognised"] == 2
    assert listed["Coffee"]["held_out_tried"] == 0 and listed["Coffee"]["held_out_accuracy"] is None

    rows = write_csv(tmp_path / "meals.csv", ["image"], [[p.name] for p in plates])
    out = tmp_path / "results.csv"
    assert main(["batch", str(rows), "--out", str(out), "--model", model, "--user", "carol"]) == 0
    results = read_csv(out)
    assert results[0]["predicted_label"] == results[1]["predicted_label"] == "Sunday pie"
    assert results[0]["predicted_food"] == "Banana"
    assert results[2]["predicted_label"] == "Coffee" and results[2]["predicted_food"] == "Espresso"
    # Dave has no dishes: the same photos get the model's own classes.
    assert main(["batch", str(rows), "--out", str(tmp_path / "dave.csv"), "--model", model, "--user", "dave"]) in (0, 1)
    assert all(r["predicted_label"] not in ("Sunday pie", "Coffee") for r in read_csv(tmp_path / "dave.csv"))

    assert main(["dishes", "remove", "carol", "sunday PIE"]) == 0
    assert "removed with the vectors of 2 photos" in capsys.readouterr().out
    assert main(["dishes", "list", "carol", "--json", "--model", model]) == 0
    assert [d["dish"] for d in json.loads(capsys.readouterr().out)] == ["Coffee"]


def test_dishes_bad_inputs_say_what_to_do(tmp_path, database, capsys):
    model = str(tiny_model(tmp_path, seed=0))
    plate = str(photo(tmp_path / "plate.jpg"))
    assert main(["dishes", "add", "carol", "Pie", "--food", "no such food", plate, "--model", model]) == 1
    assert "unknown food" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["dishes", "add", "carol", "Pie", "--food", "banana", *[plate] * 11, "--model", model])
    assert exit_info.value.code == 2 and "at most 10 photos" in capsys.readouterr().err
    assert main(["dishes", "add", "carol", "Pie", "--food", "banana", str(tmp_path / "missing.jpg")]) == 1
    assert "file not found" in capsys.readouterr().err
    assert main(["dishes", "remove", "dave", "Pie"]) == 1
    assert "you have no dish 'Pie'" in capsys.readouterr().err
    assert main(["batch", str(tmp_path / "x.csv"), "--out", str(tmp_path / "y.csv"), "--user", " "]) == 2


def test_without_model_the_cli_and_batch_use_the_users_model_and_rank_as_the_page(tmp_path, database,
                                                                                   default_model_path):
    """Carol picked an installed model in the app: `dishes add` embeds with it (not the built-in
    default), and `batch --user carol` gives each photo the page's top-5, her dish among them."""
    import shutil

    from app.model_catalog import ModelCatalog
    from app.dishes import embedding_space
    from app.meals import Analyzer
    from db import dishes as stored
    from db import service
    from models.paths import data_home

    picked = data_home() / "models" / "carols-pick.onnx"
    shutil.copyfile(tiny_model(tmp_path, seed=0), picked)
    try:
        service.set_user_model("carol", "carols-pick")
        plates = [plain(tmp_path / f"plate{i}.jpg", colour) for i, colour in
                  enumerate([(200, 40, 30), (190, 50, 40), (20, 40, 200)])]
        assert main(["dishes", "add", "carol", "Sunday pie", "--food", "banana", *map(str, plates[:2])]) == 0
        analyzer = Analyzer(ModelCatalog())
        engine, info, _note = analyzer.engine_for("carol")
        assert info.name == "carols-pick"
        [dish] = stored.dish_vectors(["carol"], space=embedding_space(engine))
        assert dish["dish"] == "Sunday pie" and len(dish["photos"]) == 2

        rows = write_csv(tmp_path / "meals.csv", ["image"], [[p.name] for p in plates])
        out = tmp_path / "results.csv"
        assert main(["batch", str(rows), "--out", str(out), "--user", "carol", "--confidence-threshold", "0"]) == 0
        for plate, row in zip(plates, read_csv(out)):
            page = analyzer.analyze(analyzer.read(plate.read_bytes(), plate.name, "carols-pick"), 0.0,
                                    "carols-pick", user="carol")
            assert row["top_k"] == "; ".join(f"{s.label}:{s.probability:.4f}" for s in page.suggestions)
        assert read_csv(out)[0]["predicted_label"] == "Sunday pie"
    finally:
        picked.unlink()
