#!/usr/bin/env python3
"""Records a short WebM video (VP8, a moving trail marker on a green field) with headless Chromium's
MediaRecorder — a real encoder's output for the visitor app's tests, made on the machine, no ffmpeg.

usage: make-test-video.py OUT.webm [SECONDS]
"""
import base64
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

RECORD = """
const [seconds, done] = arguments;
const canvas = document.createElement('canvas');
canvas.width = 320; canvas.height = 180;
document.body.append(canvas);
const g = canvas.getContext('2d');
const stream = canvas.captureStream(25);
const recorder = new MediaRecorder(stream, {mimeType: 'video/webm;codecs=vp8'});
const parts = [];
recorder.ondataavailable = (e) => parts.push(e.data);
recorder.onstop = async () => {
  const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  done(btoa(text));
};
const start = performance.now();
function frame() {
  const t = (performance.now() - start) / 1000;
  g.fillStyle = '#1b4332'; g.fillRect(0, 0, 320, 180);
  g.fillStyle = '#f2c14e'; g.beginPath(); g.arc(20 + (t / seconds) * 280, 90 + 40 * Math.sin(t * 3), 14, 0, 7); g.fill();
  if (t < seconds) requestAnimationFrame(frame); else recorder.stop();
}
recorder.start(200);
frame();
"""


def main():
    out = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get("data:text/html,<title>recorder</title>")
        driver.set_script_timeout(seconds + 30)
        data = base64.b64decode(driver.execute_async_script(RECORD, seconds))
    finally:
        driver.quit()
    if data[:4] != b"\x1a\x45\xdf\xa3":
        print("the recording is not a WebM file", file=sys.stderr)
        return 1
    with open(out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
