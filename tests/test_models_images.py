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
