"""Issue 24, section 3: the one reader of user-given paths opens regular files only
(cardtable/platform/files.py); a FIFO, device, socket or folder is refused by name at once."""

import os
import socket

import pytest

from cardtable.platform.files import FileTooLargeError, NotRegularFileError, open_regular, read_regular_bytes


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    with pytest.raises(NotRegularFileError) as info:
        open_regular(path)
    assert info.value.strerror == "a FIFO (named pipe), not a regular file"
    assert str(info.value) == f"{path} is a FIFO (named pipe), not a regular file"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_character_device_is_refused_also_through_a_link(tmp_path, device):
    link = tmp_path / "record.gops"
    link.symlink_to(device)
    for target in (device, link):
        with pytest.raises(NotRegularFileError, match="a character device, not a regular file"):
            read_regular_bytes(target, 100)


def test_a_socket_is_named_not_reported_as_a_missing_device(tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(NotRegularFileError, match="a socket, not a regular file"):
            read_regular_bytes(path)


def test_a_folder_is_refused_and_a_missing_file_keeps_its_error(tmp_path):
    with pytest.raises(NotRegularFileError, match="a folder, not a regular file"):
        read_regular_bytes(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_regular_bytes(tmp_path / "missing")


def test_a_regular_file_is_read_in_blocking_mode_up_to_its_limit(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("héllo", encoding="utf-8")
    with open_regular(path, "r", encoding="utf-8") as f:
        assert os.get_blocking(f.fileno())  # O_NONBLOCK was cleared after the check
        assert f.read() == "héllo"
    assert read_regular_bytes(path, 6) == "héllo".encode()
    with pytest.raises(FileTooLargeError, match="over 5 bytes"):
        read_regular_bytes(path, 5)
    with pytest.raises(ValueError, match="reads only"):
        open_regular(path, "w")
