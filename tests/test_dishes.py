"""Personal dishes: the embedding output of exported models, recognition with open-set rejection,
the stored vectors (deletion, isolation between users), and a dish added through the service,
the analyser and the UI handler recognised in the very next request."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from batch_support import tiny_model
from db_support import alice, db_url  # noqa: F401  (fixtures)
from PIL import Image
from sqlalchemy import func, select

from app.dishes import DishError, add_dish, as_photo_vectors, embedding_space, photo_vectors
from db import dishes as stored
from db import service
from db.errors import InvalidValue, NotFound
from models.dishes import DishRecognizer, leave_one_out_hits, support_views
from models.engine import Engine
from models.metadata import read_metadata


def picture(seed: int, size: int = 48) -> Image.Image:
    """A smooth photo-like image: each seed its own colours and layout."""
    from models.export import parity_images

    return parity_images(1, size=size, seed=seed)[0]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return tiny_model(tmp_path_factory.getbasetemp(), seed=0)


@pytest.fixture(scope="module")
def engine(tiny) -> Engine:
    return Engine(tiny)


# --- the embedding output --------------------------------------------------------------------


def test_exported_model_names_its_embedding_output_and_returns_it_with_the_logits(tiny, engine):
    assert read_metadata(tiny)["embedding_output"] == "embedding"
    assert [o.name for o in engine.session.get_outputs()] == ["logits", "embedding"]
    batch = np.stack([engine.preprocess_image(picture(seed)) for seed in range(3)])
    logits, embeddings = engine.run_with_embedding(batch)
    assert embeddings.shape == (3, 32) and embeddings.dtype == np.float32  # vit_micro's embed_dim
    np.testing.assert_array_equal(logits, engine.run(batch))
    # The embedding is what the classifier reads: the logits are its linear map.
    assert np.linalg.matrix_rank(np.concatenate([embeddings, np.ones((3, 1))], 1)) == 3


def test_the_default_model_outputs_imagenets_embedding_for_dishes(default_model_path):
    engine = Engine(default_model_path)
    assert engine.metadata["embedding_output"] == "embedding" and engine.has_embedding
    # EfficientNet-Lite0's pooled features (1280), not the 64 px Food-101 student's (192): they
    # recognise new dishes better (docs/dishes.md, the 91-class run).
    assert photo_vectors(engine, picture(0, size=256)).dim == 1280


def test_a_model_file_without_the_embedding_still_predicts_but_learns_no_dishes(tmp_path, monkeypatch):
    import models.export
    from models.export import export_onnx
    from models.registry import create_model

    monkeypatch.setattr(models.export, "with_embedding", lambda model, size: None)  # an export before it existed
    model = create_model("vit_micro", labels=["a", "b"], pretrained=False, img_size=32, patch_size=16,
                         depth=1, embed_dim=32, num_heads=2)
    old = Engine(export_onnx(model, tmp_path / "old.onnx"))
    assert not old.has_embedding and "embedding_output" not in old.metadata
    assert len(old.predict([picture(0)])[0]) == 2
    assert old.run_with_embedding(old.preprocess_image(picture(0))[None])[1] is None
    with pytest.raises(DishError, match="no embedding output.*re-export"):
        photo_vectors(old, picture(0))


# --- recognition -------------------------------------------------------------------------------


def _around(direction: np.ndarray, spread: float, count: int, rng) -> list[np.ndarray]:
    return [direction + spread * rng.standard_normal((4, direction.size)) for _ in range(count)]


def test_open_set_rejection_leaves_a_photo_of_another_dish_to_the_model():
    rng = np.random.default_rng(0)
    axes = np.eye(16, dtype=np.float32)
    recognizer = DishRecognizer(["curry", "soup"], [_around(axes[0], 0.05, 5, rng), _around(axes[1], 0.05, 5, rng)])
    global_p = np.array([0.7, 0.2, 0.1])
    # A photo of the curry: the curry takes almost all the mass.
    dishes, model = recognizer.merged(axes[0] + 0.05 * rng.standard_normal(16), global_p)
    assert dishes.argmax() == 0 and dishes[0] > 0.9
    assert dishes.sum() + model.sum() == pytest.approx(1.0)
    # A photo of a dish never added (another direction): no dish is claimed, the model's classes
    # keep their order and nearly all their probability.
    dishes, model = recognizer.merged(axes[5] + 0.05 * rng.standard_normal(16), global_p)
    assert dishes.max() < 0.01
    assert list(np.argsort(-model)) == [0, 1, 2] and model.sum() > 0.98


def test_support_views_are_the_photo_and_its_mirror():
    image = picture(1, size=100)
    views = support_views(image)
    assert len(views) == 2 and views[0] is image
    assert np.array_equal(np.asarray(views[1]), np.asarray(image)[:, ::-1])


def test_leave_one_out_recognition_is_measured_on_held_out_photos_per_dish():
    rng = np.random.default_rng(1)
    axes = np.eye(8, dtype=np.float32)
    photos = [_around(axes[0], 0.05, 3, rng), _around(axes[1], 0.05, 3, rng)]
    assert leave_one_out_hits(["a", "b"], photos) == [(3, 3), (3, 3)]
    # One photo of "a" that looks like "b": held out, it is recognised as "b".
    photos[0][0] = _around(axes[1], 0.05, 1, rng)[0]
    assert leave_one_out_hits(["a", "b"], photos) == [(2, 3), (3, 3)]  # the miss is a's, per dish
    assert leave_one_out_hits(["a"], photos[:1]) is None
    # A dish of one photo has nothing to be recognised from without it: not tried, not a miss.
    photos.append(_around(axes[2], 0.05, 1, rng))
    assert leave_one_out_hits(["a", "b", "c"], photos) == [(2, 3), (3, 3), (0, 0)]


# --- stored vectors ------------------------------------------------------------------------------


@pytest.fixture
def bob(alice: str) -> str:
    from db import service

    service.create_user("bob")
    return "bob"


def _vectors(seed: int) -> stored.PhotoVectors:
    return as_photo_vectors(np.random.default_rng(seed).standard_normal((4, 8)).astype(np.float32))


def test_a_dish_is_stored_listed_and_removed_with_its_vectors(alice):
    from db.tables import DishExample
    from db.session import session_scope

    added = stored.add_dish(alice, "Mum's banana", "banana", [_vectors(0), _vectors(1)], space="v1")
    assert added == {"dish": "Mum's banana", "food": "Banana", "photos": 2}
    # The same name again adds photos; another food under that name is refused.
    assert stored.add_dish(alice, "mum's BANANA", "Banana", [_vectors(2)], space="v1")["photos"] == 3
    with pytest.raises(InvalidValue, match="is 'Banana', not 'Espresso'"):
        stored.add_dish(alice, "Mum's banana", "espresso", [_vectors(3)], space="v1")
    [listed] = stored.list_dishes(alice)
    assert (listed["dish"], listed["food"], listed["photos"]) == ("Mum's banana", "Banana", 3)
    [learned] = stored.dish_vectors([alice], space="v1")
    assert [p.data for p in learned["photos"]] == [_vectors(i).data for i in range(3)]
    assert stored.dish_vectors([alice], space="another model") == []
    assert stored.remove_dish(alice, "MUM'S BANANA") == 3
    assert stored.list_dishes(alice) == []
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count()).select_from(DishExample)) == 0


def test_bad_dish_inputs_are_refused_and_nothing_is_stored(alice):
    for photos, words in (([], "1 to 10 photos"), ([_vectors(0)] * 11, "1 to 10 photos")):
        with pytest.raises(InvalidValue, match=words):
            stored.add_dish(alice, "Soup", "banana", photos, space="v1")
    with pytest.raises(InvalidValue, match="need 128 bytes"):
        stored.PhotoVectors(4, 8, b"\0" * 12)
    with pytest.raises(InvalidValue):
        stored.add_dish(alice, "", "banana", [_vectors(0)], space="v1")
    assert stored.list_dishes(alice) == []


def test_dishes_are_isolated_between_users(alice, bob):
    stored.add_dish(alice, "Pie", "banana", [_vectors(0)], space="v1")
    assert stored.list_dishes(bob) == [] and stored.dish_vectors(stored.recognition_owners(bob), space="v1") == []
    with pytest.raises(NotFound):
        stored.remove_dish(bob, "Pie")
    # Bob's correction to banana finds no dish of his: alice's dish is not touched.
    correction = dict(is_correction=True, photo_vectors=_vectors(5), vector_space="v1")
    assert service.log_meal(bob, "banana", **correction)["dish_learned"] is None
    assert service.log_meal(alice, "banana", **correction)["dish_learned"] == "Pie"
    assert [d["photos"] for d in stored.list_dishes(alice)] == [2]


def test_a_correction_and_its_dish_photo_are_one_transaction(alice, monkeypatch):
    """A meal logged as a correction and the photo its dish learns are stored together or not
    at all: a failure while keeping the photo leaves neither."""
    stored.add_dish(alice, "Pie", "banana", [_vectors(0)], space="v1")
    before = service.day_summary(alice, date.today())["entries"]

    def broken(*_args, **_kwargs):
        raise InvalidValue("disk full")

    monkeypatch.setattr(stored, "_add_photos", broken)
    with pytest.raises(InvalidValue, match="disk full"):
        service.log_meal(alice, "banana", is_correction=True, photo_vectors=_vectors(5), vector_space="v1")
    assert service.day_summary(alice, date.today())["entries"] == before
    assert [d["photos"] for d in stored.list_dishes(alice)] == [1]
    # Not a correction (the model was right): the dish learns nothing, the meal is logged.
    monkeypatch.undo()
    entry = service.log_meal(alice, "banana", is_correction=False, photo_vectors=_vectors(5), vector_space="v1")
    assert entry["created"] and entry["dish_learned"] is None
    assert [d["photos"] for d in stored.list_dishes(alice)] == [1]


def test_a_dish_keeps_its_newest_photos(alice, monkeypatch):
    monkeypatch.setattr(stored, "MAX_PHOTOS_PER_DISH", 3)
    stored.add_dish(alice, "Pie", "banana", [_vectors(i) for i in range(2)], space="v1")
    stored.add_dish(alice, "Pie", "banana", [_vectors(i) for i in range(2, 4)], space="v1")
    [learned] = stored.dish_vectors([alice], space="v1")
    assert [p.data for p in learned["photos"]] == [_vectors(i).data for i in (1, 2, 3)]


# --- the app: service, analyser, UI handler ---------------------------------------------------


@pytest.fixture
def analyzer(tiny, db_url):
    from app.meals import Analyzer
    from app.model_catalog import ModelCatalog

    return Analyzer(ModelCatalog([tiny], default_path=lambda: tiny))


def test_a_dish_added_through_the_service_is_recognised_in_the_next_request(analyzer, engine, alice, bob):
    from app.meals import Photo

    plate, other = picture(10), picture(11)
    assert not analyzer.analyze(Photo(plate), 0.5, user=alice).top.dish
    added = add_dish(engine, alice, "Mum's banana", "banana", [plate])
    assert added["photos"] == 1
    analysis = analyzer.analyze(Photo(plate), 0.5, user=alice)
    top = analysis.top
    assert (top.label, top.food, top.dish) == ("Mum's banana", "Banana", True)
    assert sum(s.probability for s in analysis.suggestions) <= 1.0 + 1e-9
    assert analysis.space == embedding_space(engine) and analysis.vectors.views == 1
    assert "dish" in json.dumps(analysis.to_dict()) and "vectors" not in analysis.to_dict()
    # Another user's photo of the same plate is not recognised as alice's dish.
    assert not any(s.dish for s in analyzer.analyze(Photo(plate), 0.5, user=bob).suggestions)
    # Removed: gone from the next request.
    stored.remove_dish(alice, "Mum's banana")
    assert not any(s.dish for s in analyzer.analyze(Photo(other), 0.5, user=alice).suggestions)


def test_a_dish_added_through_the_ui_is_recognised_and_a_correction_teaches_it(tiny, db_url, tmp_path, monkeypatch):
    from app.meals import Analyzer
    from app.auth import Identity
    from app.model_catalog import ModelCatalog
    from app.security import OwnedFiles
    from app.ui import AppContext, build_page
    from db import service

    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path / "home"))
    service.create_user("carol")
    catalog = ModelCatalog([tiny], default_path=lambda: tiny)
    context = AppContext(catalog=catalog, analyzer=Analyzer(catalog), identity=Identity(True),
                         max_upload_bytes=2**20, files=OwnedFiles())
    # The Analyse and My dishes handlers, wired as app.ui.build_page wires them: the same analyser.
    page = build_page(context)
    handlers, dish_handlers = page.analyse, page.photos
    c = dish_handlers.c
    carol = SimpleNamespace(username="carol")
    files = {}
    for name, seed in (("pie.jpg", 20), ("coffee.jpg", 40), ("plate.jpg", 60)):
        files[name] = tmp_path / name
        picture(seed, size=64).save(files[name], "JPEG", quality=95)
    shown = dish_handlers.add_dish("Pie", "banana", [str(files["pie.jpg"])], carol)
    status, picker = shown[c.dishes_status], shown[c.dish_pick]
    assert "Saved **Pie** (Banana), 1 photos" in status and picker["choices"] == ["Pie"]
    dish_handlers.add_dish("Morning coffee", "espresso", [str(files["coffee.jpg"])], carol)
    state = handlers.analyze(str(files["pie.jpg"]), None, carol)[handlers.c.state]
    top = state["analysis"]["predictions"][0]
    assert (top["label"], top["food"], top["dish"]) == ("Pie", "Banana", True)
    # A new photo logged as the dish it was not ranked first for: that dish learns it at once.
    state = handlers.analyze(str(files["plate.jpg"]), None, carol)[handlers.c.state]
    picked = "Espresso" if state["analysis"]["predictions"][0]["food"] != "Espresso" else "Banana"
    state = handlers.choose_suggestion(state, picked, carol)[handlers.c.state]
    message = handlers.log_meal(state, None, None, "lunch", "now", "", carol)
    dish = {"Espresso": "Morning coffee", "Banana": "Pie"}[picked]
    assert f"Your dish {dish!r} learned this photo." in message
    assert {d["dish"]: d["photos"] for d in stored.list_dishes("carol")}[dish] == 2
    # The Models tab: each dish's held-out recognition; the dish of one photo has none to show.
    shown = dish_handlers.my_dishes(carol)
    table, line = shown[c.dishes_table], shown[c.dishes_accuracy]
    held_out = dict(zip(table["dish"], table["recognised from your other photos"]))
    assert held_out[dish] in ("0 of 2", "1 of 2", "2 of 2") and set(held_out.values()) - {held_out[dish]} == {"-"}
    assert f"{held_out[dish]} right" in line
    shown = dish_handlers.remove_dish("Pie", carol)
    status, picker = shown[c.dishes_status], shown[c.dish_pick]
    assert status == "Removed Pie with the vectors of 1 photos." and picker["choices"] == ["Morning coffee"]
    for too_few_or_many in ([], [str(files["pie.jpg"])] * 11):
        with pytest.raises(Exception, match="Add 1 to 10 photos"):
            dish_handlers.add_dish("Soup", "banana", too_few_or_many, carol)


def test_dishes_learned_with_another_model_are_not_mixed_in_and_the_user_is_told(analyzer, alice):
    from app.meals import Photo

    stored.add_dish(alice, "Old pie", "banana", [as_photo_vectors(np.ones((2, 32), np.float32))], space="another model")
    analysis = analyzer.analyze(Photo(picture(3)), 0.5, user=alice)
    assert not any(s.dish for s in analysis.suggestions)
    assert any("learned with another model" in note for note in analysis.notes)


def test_removing_the_account_removes_its_dishes_and_vectors(alice, bob):
    from db import service
    from db.tables import DishExample, PersonalDish
    from db.session import session_scope

    stored.add_dish(alice, "Pie", "banana", [_vectors(0), _vectors(1)], space="v1")
    stored.add_dish(bob, "Pie", "banana", [_vectors(2)], space="v1")
    service.remove_user(alice)
    with session_scope(write=False) as session:
        assert session.scalar(select(func.count()).select_from(PersonalDish)) == 1
        assert session.scalar(select(func.count()).select_from(DishExample)) == 1
    assert stored.list_dishes(bob)[0]["photos"] == 1


def test_a_household_shares_its_dishes_but_not_a_members_own_recipes(alice, bob):
    from db import households, personal

    personal.create_own_food(alice, "Gran's flapjack", {"kcal": 450, "carbohydrate_g": 60, "protein_g": 6, "fat_g": 20})
    stored.add_dish(alice, "Pie", "banana", [_vectors(0)], space="v1")
    stored.add_dish(alice, "Flapjack", "Gran's flapjack", [_vectors(1)], space="v1")
    assert stored.dish_vectors(stored.recognition_owners(bob), space="v1", viewer=bob) == []
    households.create_household(alice, "Home")
    households.join_household(bob, households.create_invite(alice))
    assert stored.recognition_owners(bob) == [alice, bob]
    # Bob's photos are recognised as alice's public dish; her own recipe stays hers alone.
    shared = stored.dish_vectors(stored.recognition_owners(bob), space="v1", viewer=bob)
    assert [(d["dish"], d["owner"]) for d in shared] == [("Pie", alice)]
    mine = stored.dish_vectors(stored.recognition_owners(alice), space="v1", viewer=alice)
    assert sorted(d["dish"] for d in mine) == ["Flapjack", "Pie"]
    households.leave_household(bob)
    assert stored.dish_vectors(stored.recognition_owners(bob), space="v1", viewer=bob) == []
