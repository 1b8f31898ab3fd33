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


def test_read_text_file_size_limit(tmp_path):
    # A text over the limit is refused before it is read (tokenising 60 MB takes minutes and GBs).
    from smlengine.datasets._text import MAX_TEXT_BYTES

    assert MAX_TEXT_BYTES == 20 * 2**20
    path = tmp_path / "huge.txt"
    with open(path, "wb") as fh:  # sparse file: no disk space used
        fh.truncate(60 * 2**20)
    with pytest.raises(ValueError, match="larger than the 20 MB limit") as err:
        read_text_file(path)
    assert "60 MB" in str(err.value)


def test_read_text_file_just_below_the_limit_reads_in_chunks(tmp_path, monkeypatch):
    from smlengine.datasets import _text

    monkeypatch.setattr(_text, "_CHUNK", 7)  # many chunks, multi-byte characters split
    monkeypatch.setattr(_text, "MAX_TEXT_BYTES", 64)
    path = tmp_path / "t.txt"
    text = "é" * 32  # 64 bytes: exactly at the limit
    path.write_text(text, encoding="utf-8")
    assert read_text_file(path) == text
    path.write_text(text + "x", encoding="utf-8")
    with pytest.raises(ValueError, match="limit"):
        read_text_file(path)


def test_read_text_file_binary_folder_and_missing(tmp_path):
    path = tmp_path / "pic.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    with pytest.raises(ValueError, match=r"pic.png is not a text file \(binary data\)"):
        read_text_file(path)
    with pytest.raises(ValueError, match="is a folder, not a text file"):
        read_text_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_text_file(tmp_path / "missing.txt")


def test_read_text_file_without_line_breaks(tmp_path):
    path = tmp_path / "one-line.txt"
    path.write_text("word " * 300_000, encoding="utf-8")  # 1.5 MB, no newline
    assert read_text_file(path) == "word " * 300_000


def test_unknown_names_are_quoted_briefly():
    with pytest.raises(ValueError, match="unknown play") as err:
        load_play("Hamlet" * 10_000)
    assert len(str(err.value)) < 250
    with pytest.raises(ValueError, match="unknown corpus") as err:
        load_corpus("x" * 10_000)
    assert len(str(err.value)) < 250
