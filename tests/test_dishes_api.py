"""The HTTP API of personal dishes: POST /api/my/dishes (multipart: name, food, 1-10 photos), the
dish recognised by the next POST /api/analyze, GET the list, DELETE the dish; bad inputs refused."""

from __future__ import annotations

import io

import httpx
import pytest
from app_support import seeded_server
from batch_support import tiny_model
from test_dishes import picture


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dishes-api")
    with seeded_server(folder, models=[tiny_model(folder, seed=0)], max_upload_mb=1) as live:
        yield live


def jpeg(seed: int) -> bytes:
    buffer = io.BytesIO()
    picture(seed, size=64).save(buffer, "JPEG", quality=95)
    return buffer.getvalue()


def test_a_dish_added_through_the_api_is_recognised_by_the_next_analysis(server):
    added = httpx.post(f"{server.url}/api/my/dishes", data={"name": "Pie", "food": "banana"},
                       files=[("file", ("a.jpg", jpeg(20))), ("file", ("b.jpg", jpeg(21)))], timeout=60)
    assert added.status_code == 201, added.text
    assert added.json() == {"dish": "Pie", "food": "Banana", "photos": 2}
    top = httpx.post(f"{server.url}/api/analyze", files={"file": ("a.jpg", jpeg(20))}, timeout=60).json()["predictions"][0]
    assert (top["label"], top["food"], top["dish"]) == ("Pie", "Banana", True)
    [listed] = httpx.get(f"{server.url}/api/my/dishes").json()
    assert (listed["dish"], listed["photos"]) == ("Pie", 2)
    removed = httpx.delete(f"{server.url}/api/my/dishes/Pie")
    assert removed.json() == {"dish": "Pie", "photos_removed": 2}
    assert httpx.get(f"{server.url}/api/my/dishes").json() == []
    top = httpx.post(f"{server.url}/api/analyze", files={"file": ("a.jpg", jpeg(20))}, timeout=60).json()["predictions"][0]
    assert not top["dish"]


def test_bad_dish_uploads_are_refused_with_a_clear_message(server):
    url = f"{server.url}/api/my/dishes"
    none = httpx.post(url, data={"name": "Pie", "food": "banana"}, timeout=60)
    assert none.status_code == 400 and "1 to 10 photos" in none.json()["error"]
    eleven = httpx.post(url, data={"name": "Pie", "food": "banana"},
                        files=[("file", (f"{i}.jpg", jpeg(1))) for i in range(11)], timeout=60)
    assert eleven.status_code == 400
    unknown = httpx.post(url, data={"name": "Pie", "food": "no such food"}, files=[("file", ("a.jpg", jpeg(1)))], timeout=60)
    assert unknown.status_code == 404 and "unknown food" in unknown.json()["error"]
    broken = httpx.post(url, data={"name": "Pie", "food": "banana"}, files=[("file", ("a.jpg", b"not a photo"))], timeout=60)
    assert broken.status_code == 400
    big = httpx.post(url, data={"name": "Pie", "food": "banana"}, files=[("file", ("a.jpg", b"\0" * (2**20 + 1)))], timeout=60)
    assert big.status_code == 413
    assert httpx.delete(f"{url}/Nothing").status_code == 404
    assert httpx.get(url).json() == []
