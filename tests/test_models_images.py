import io

import numpy as np
import pytest
from PIL import Image

from models.engine import Engine
from models.errors import ImageError
from models.images import load_image


def _save(image: Image.Image, path, **kwargs):
    image.save(path, **kwargs)
    return path


def _photo(size=(160, 120)) -> Image.Image:
    yy, xx = np.mgrid[0 : size[1], 0 : size[0]]
    rgb = np.stack([xx * 255 // size[0], yy * 255 // size[1], np.full_like(xx, 90)], axis=-1)
    return Image.fromarray(rgb.astype(np.uint8), "RGB")


def _variants(tmp_path):
    photo = _photo()
    sixteen = Image.fromarray(np.asarray(photo.convert("L"), dtype=np.uint16) * 257)
    frames = [photo, photo.transpose(Image.Transpose.FLIP_LEFT_RIGHT)]
    yield "rgb.jpg", _save(photo, tmp_path / "rgb.jpg")
    yield "grayscale.png", _save(photo.convert("L"), tmp_path / "grayscale.png")
    yield "cmyk.jpg", _save(photo.convert("CMYK"), tmp_path / "cmyk.jpg")
    yield "palette.gif", _save(photo.convert("P"), tmp_path / "palette.gif")
    yield "alpha.png", _save(photo.convert("RGBA"), tmp_path / "alpha.png")
    yield "gray-alpha.png", _save(photo.convert("LA"), tmp_path / "gray-alpha.png")
    yield "sixteen-bit.png", _save(sixteen, tmp_path / "sixteen-bit.png")
    yield "bilevel.png", _save(photo.convert("1"), tmp_path / "bilevel.png")
    yield "animated.gif", _save(frames[0], tmp_path / "animated.gif", save_all=True, append_images=frames[1:])
    yield "webp.webp", _save(photo, tmp_path / "webp.webp")


def test_every_image_mode_becomes_rgb_and_predicts(tmp_path, default_model_path):
    engine = Engine(default_model_path)
    images = []
    for name, path in _variants(tmp_path):
        image = load_image(path)
        assert image.mode == "RGB", name
        assert image.size == (160, 120), name
        images.append(image)
    assert len(engine.predict(images)) == len(images)


def test_sixteen_bit_is_scaled_not_clipped(tmp_path):
    gray = np.linspace(0, 65535, 64 * 64).reshape(64, 64).astype(np.uint16)
    path = _save(Image.fromarray(gray), tmp_path / "deep.png")
    values = np.asarray(load_image(path))[..., 0]
    assert values.min() == 0 and values.max() == 255 and len(np.unique(values)) > 200


def test_transparent_pixels_become_white(tmp_path):
    path = _save(Image.new("RGBA", (8, 8), (255, 0, 0, 0)), tmp_path / "clear.png")
    assert load_image(path).getpixel((0, 0)) == (255, 255, 255)


def test_exif_orientation_is_applied(tmp_path):
    photo = _photo((160, 120))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees clockwise when displayed
    path = _save(photo, tmp_path / "phone.jpg", exif=exif.tobytes())
    assert load_image(path).size == (120, 160)


def test_bytes_and_file_objects_are_accepted(tmp_path):
    buffer = io.BytesIO()
    _photo().save(buffer, format="PNG")
    assert load_image(buffer.getvalue(), name="upload.png").mode == "RGB"
    buffer.seek(0)
    assert load_image(buffer, name="upload.png").size == (160, 120)


def test_bad_files_raise_one_clear_error_naming_the_file(tmp_path):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    text = tmp_path / "notes.jpg"
    text.write_text("this is my lunch, honest")
    good = tmp_path / "good.jpg"
    _photo((640, 480)).save(good, quality=95)
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 3])
    bomb = tmp_path / "bomb.png"
    Image.new("1", (12_000, 12_000)).save(bomb)
    cases = {
        empty: "empty.jpg: file is empty",
        text: "notes.jpg: not an image",
        truncated: "truncated.jpg: corrupt or truncated",
        bomb: "bomb.png: image is too large",
        tmp_path / "absent.jpg": "absent.jpg: file not found",
    }
    for path, message in cases.items():
        with pytest.raises(ImageError, match=message):
            load_image(path)
    with pytest.raises(ImageError, match="upload: file is empty"):
        load_image(b"", name="upload")


def test_min_side_decodes_the_smallest_size_that_keeps_the_shorter_side(tmp_path):
    photo = _photo((1600, 1200))
    jpeg = _save(photo, tmp_path / "big.jpg", quality=95)
    png = _save(photo, tmp_path / "big.png")
    # JPEG: DCT scaling by 4 gives 400x300 (1/8 would be 200x150, below 256).
    assert load_image(jpeg, min_side=256).size == (400, 300)
    # JPEG at 1/8 (200x150), then a box reduction by 1: nothing smaller keeps 100 px.
    assert load_image(jpeg, min_side=100).size == (200, 150)
    assert load_image(jpeg, min_side=70).size == (100, 75)  # 1/8, then reduce(2)
    assert load_image(png, min_side=256).size == (400, 300)  # reduce(4)
    assert load_image(png, min_side=1200).size == (1600, 1200)
    assert load_image(png).size == (1600, 1200)


def test_photos_up_to_twice_the_resize_size_are_decoded_in_full(tmp_path, default_model_path, coffee_image):
    """The exact resize, not a box reduction or DCT scaling, does the last halving of the shrink."""
    engine = Engine(default_model_path)
    short = 2 * engine.preprocess.resize_size
    path = _save(coffee_image.resize((short * 4 // 3, short), Image.Resampling.BICUBIC), tmp_path / "p.jpg", quality=95)
    assert load_image(path, min_side=engine.preprocess.decode_side).size == load_image(path).size
    full, cheap = (engine.preprocess_image(load_image(path, min_side=m)) for m in (None, engine.preprocess.decode_side))
    assert np.array_equal(full, cheap)


def test_cheap_decode_gives_the_same_model_input(tmp_path, default_model_path, coffee_image):
    engine = Engine(default_model_path)
    big = coffee_image.resize((1800, 1200), Image.Resampling.BICUBIC)
    path = _save(big, tmp_path / "coffee.jpg", quality=95)
    side = engine.preprocess.decode_side
    full, cheap = (engine.preprocess_image(load_image(path, min_side=m)) for m in (None, side))
    # Normalised units (about 1/58 per grey level): the pictures match to a few grey levels.
    assert np.abs(full - cheap).mean() < 0.05
    assert engine.predict_arrays(full[None])[0][0].label == engine.predict_arrays(cheap[None])[0][0].label


def test_exif_orientation_survives_the_reduction(tmp_path):
    photo = _photo((1600, 1200))
    exif = Image.Exif()
    exif[0x0112] = 6
    png = _save(photo, tmp_path / "phone.png", exif=exif.tobytes())
    tiff = _save(photo, tmp_path / "scan.tiff", tiffinfo={0x0112: 6})
    for path in (png, tiff):
        assert load_image(path, min_side=256).size == (300, 400), path.name
        assert load_image(path).size == (1200, 1600), path.name


def test_heic_photo_loads_like_its_jpeg_twin(coffee_image):
    from image_support import heic_bytes

    heic = load_image(heic_bytes(coffee_image), name="IMG_0001.HEIC")
    assert heic.size == coffee_image.size and heic.mode == "RGB"
    assert np.abs(np.asarray(heic, np.float32) - np.asarray(coffee_image, np.float32)).mean() < 4


def test_formats_outside_the_allowlist_are_refused(tmp_path):
    for suffix in ("ppm", "ico", "pcx"):
        path = _save(_photo(), tmp_path / f"photo.{suffix}")
        with pytest.raises(ImageError, match=f"photo.{suffix}: not an image or an unsupported format"):
            load_image(path)


@pytest.mark.parametrize("name, size", [("sliver-1x100000.png", None), ("sliver-1x8000.png", None),
                                        ("rgba-8000x8000.png", None), ("photo-60mp.jpg", (375, 280))])
def test_hostile_photos_are_refused_from_the_header_or_decoded_small(name, size, bomb_files):
    data = bomb_files[name]
    if size is None:
        with pytest.raises(ImageError, match=rf"{name}: image is .*(too long and thin|too large to decode)"):
            load_image(data, name=name, min_side=256)
    else:
        assert load_image(data, name=name, min_side=256).size == size
        # Without min_side the full 60 MP decode would take ~540 MB: refused, not attempted.
        with pytest.raises(ImageError, match="too large to decode"):
            load_image(data, name=name)


def test_decode_budget_makes_large_decodes_wait_for_each_other():
    import threading
    import time

    from models.images import _DecodeBudget

    budget = _DecodeBudget(100)
    order = []
    holding = threading.Event()

    def first():
        with budget.reserve(80):
            holding.set()
            time.sleep(0.3)
            order.append("first done")

    def second():
        holding.wait()
        with budget.reserve(50):
            order.append("second started")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert order == ["first done", "second started"]
    with budget.reserve(30), budget.reserve(70):  # fits together: no wait
        pass
