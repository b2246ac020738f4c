#!/usr/bin/env python3
"""Renders amdahl report's report.html in headless Chromium, as a reader opens it, and fails
when a figure does not render: each <figure> of the page is screenshotted alone and must not be
blank (enough non-white pixels, several colours), and the page's first screen must show text.

usage: screenshot_test.py AMDAHL WORKDIR
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def ink(path):
    """Share of pixels that are not near-white, and the number of distinct colours."""
    width, height, rows = decode_png(path)
    dark, colours = 0, set()
    for row in rows:
        for px in row:
            if min(px) < 235:
                dark += 1
            colours.add(px)
    return dark / float(width * height), len(colours)


def screenshot(chromium, html, png, size):
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={size}", f"--screenshot={png}", "file://" + html],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    if not os.path.exists(png):
        raise SystemExit(f"chromium wrote no screenshot of {html}")


def main():
    amdahl, work = sys.argv[1], os.path.abspath(sys.argv[2])
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("chromium is not installed (scripts/setup installs it)")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "report")
    subprocess.run([amdahl, "report", "--suite", "fathom", "--system", "minsky", "-o", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = os.path.join(out, "report.html")
    size = os.path.getsize(page)
    if size > 5 * 1024 * 1024:
        raise SystemExit(f"report.html is {size} bytes, over the 5 MB target")
    with open(page, encoding="utf-8") as f:
        html = f.read()
    head = html[:html.index("<body>") + len("<body>")]
    figures = re.findall(r'<figure id="([^"]+)">(.*?)</figure>', html, re.S)
    expected = {"classes_train", "classes_infer", "batch_speedup_train", "batch_speedup_infer",
                "scaling"}
    missing = expected - {name for name, _ in figures}
    if missing:
        raise SystemExit(f"report.html lacks the figures {sorted(missing)}")
    failures = []
    for name, body in figures:
        alone = os.path.join(work, f"{name}.html")
        with open(alone, "w", encoding="utf-8") as f:
            f.write(f'{head}<figure id="{name}">{body}</figure></body></html>')
        png = os.path.join(work, f"{name}.png")
        screenshot(chromium, alone, png, "1000,620")
        share, colours = ink(png)
        print(f"{name}: {100 * share:.1f}% ink, {colours} colours")
        # A drawn chart has axes, labels and coloured series: a few percent of the screen and
        # more than a handful of colours. A blank or broken image has neither.
        if share < 0.02 or colours < 8:
            failures.append(name)
    top = os.path.join(work, "page.png")
    screenshot(chromium, page, top, "1100,1400")
    share, colours = ink(top)
    print(f"report.html first screen: {100 * share:.1f}% ink, {colours} colours")
    if share < 0.02:
        failures.append("report.html")
    if failures:
        raise SystemExit(f"blank in Chromium: {', '.join(failures)} (screenshots in {work})")
    print(f"{len(figures)} figures rendered")


if __name__ == "__main__":
    main()
