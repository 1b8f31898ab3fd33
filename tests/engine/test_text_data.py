"""Shipped Shakespeare corpus and the text-file reader."""

import pytest

from smlengine.datasets import list_plays, load_corpus, load_play, read_text_file


def test_list_plays_has_all_38():
    plays = list_plays()
    assert len(plays) == 38
    assert "Hamlet" in plays and "Henry IV, Part 1" in plays and "The Tempest" in plays


def test_load_play_by_title_or_slug():
    text = load_play("Hamlet")
    assert text.startswith("Who's there?\n")
    assert "To be, or not to be" in text
    assert load_play("hamlet") == text
    assert load_play("  HAMLET ") == text


def test_load_play_unknown_title():
    with pytest.raises(ValueError, match="unknown play"):
        load_play("Cardenio")
    with pytest.raises(TypeError):
        load_play(3)


def test_corpus_is_plain_spoken_text():
    text = load_corpus("shakespeare")
    assert 4_000_000 < len(text) < 5_000_000
    # Markdown, speaker names and stage directions are gone
    for markup in ("**", "_Exit", "# ", "\\[", "&amp;", "HAMLET\n"):
        assert markup not in text
    assert "Now is the winter of our discontent" in text
    assert load_play("Macbeth") in text


def test_load_corpus_unknown_name():
    with pytest.raises(ValueError, match="unknown corpus"):
        load_corpus("milton")


def test_read_text_file_utf8_with_progress(tmp_path):
    path = tmp_path / "poem.txt"
    path.write_text("\ufeffShall I compare thee to a summer’s day?\n", encoding="utf-8")
    seen = []
    text = read_text_file(path, progress=seen.append)
    assert text == "Shall I compare thee to a summer’s day?\n"
    assert seen and seen[-1] == 1.0


def test_read_text_file_large_file_reports_progress_in_chunks(tmp_path):
    path = tmp_path / "big.txt"
    line = "Tomorrow, and tomorrow, and tomorrow — creeps in this petty pace.\n"
    path.write_text(line * 50_000, encoding="utf-8")  # about 3.4 MB, multi-byte chars at chunk edges
    seen = []
    text = read_text_file(str(path), progress=seen.append)
    assert text == line * 50_000
    assert len(seen) >= 3
    assert seen == sorted(seen) and seen[-1] == 1.0


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"   \n\n  ", "no text"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary"),
        (b"\x01\x02\x03\x04\x05\x06\x07\x08abc", "binary"),
        ("caf\xe9 cr\xe8me".encode("latin-1"), "UTF-8"),
    ],
)
def test_read_text_file_rejects_bad_files(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_text_file(path)
