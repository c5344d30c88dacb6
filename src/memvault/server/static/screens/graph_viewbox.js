// Panning and zooming an <svg> by its viewBox alone: drag the background to pan, the
// wheel zooms around the pointer, zoomBy/fit/centreOn for buttons and code. Nothing is
// redrawn; only the viewBox attribute changes.

const ZOOM = 1.25;
const MARGIN = 40;
const EMPTY = { x: -300, y: -200, w: 600, h: 400 };

export class ViewBox {
  // onBackgroundClick: called when a press on the background ends without dragging.
  constructor(canvas, { isNode, onBackgroundClick }) {
    this.canvas = canvas;
    this.box = { ...EMPTY };
    this.drag = null;
    this.apply();
    canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      const at = this.point(event);
      this.zoomBy(event.deltaY > 0 ? ZOOM : 1 / ZOOM, at?.x, at?.y);
    }, { passive: false });
    canvas.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || isNode(event.target)) return;
      const matrix = canvas.getScreenCTM();
      this.drag = { id: event.pointerId, x: event.clientX, y: event.clientY,
        box: { ...this.box }, scale: matrix ? matrix.a : 1, moved: false };
      canvas.setPointerCapture(event.pointerId);
      canvas.classList.add("panning");
    });
    canvas.addEventListener("pointermove", (event) => {
      const drag = this.drag;
      if (!drag || drag.id !== event.pointerId) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      this.box = { ...drag.box, x: drag.box.x - dx / drag.scale,
        y: drag.box.y - dy / drag.scale };
      this.apply();
    });
    const stop = (event) => {
      const drag = this.drag;
      if (!drag || drag.id !== event.pointerId) return;
      this.drag = null;
      canvas.classList.remove("panning");
      if (!drag.moved && event.type === "pointerup") onBackgroundClick();
    };
    canvas.addEventListener("pointerup", stop);
    canvas.addEventListener("pointercancel", stop);
  }

  apply() {
    const { x, y, w, h } = this.box;
    this.canvas.setAttribute("viewBox", [x, y, w, h].map((v) => v.toFixed(1)).join(" "));
  }

  // The drawing point under a mouse event, or null before the canvas is laid out.
  point(event) {
    const matrix = this.canvas.getScreenCTM();
    if (!matrix) return null;
    return new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  }

  // Zoom by `factor` (< 1: closer) keeping the drawing point (cx, cy) where it is.
  zoomBy(factor, cx = this.box.x + this.box.w / 2, cy = this.box.y + this.box.h / 2) {
    const { x, y, w, h } = this.box;
    const scaled = Math.min(Math.max(w * factor, 60), 40000) / w;
    this.box = { x: cx - (cx - x) * scaled, y: cy - (cy - y) * scaled, w: w * scaled,
      h: h * scaled };
    this.apply();
  }

  zoomIn() {
    this.zoomBy(1 / ZOOM);
  }

  zoomOut() {
    this.zoomBy(ZOOM);
  }

  // Show every spot ({x, y, r}; labels below), a small drawing not blown up.
  fit(spots) {
    if (!spots.length) {
      this.box = { ...EMPTY };
      this.apply();
      return;
    }
    const left = Math.min(...spots.map((s) => s.x - s.r)) - MARGIN;
    const right = Math.max(...spots.map((s) => s.x + s.r)) + MARGIN;
    const top = Math.min(...spots.map((s) => s.y - s.r)) - MARGIN;
    const bottom = Math.max(...spots.map((s) => s.y + s.r + 16)) + MARGIN;
    const w = Math.max(480, right - left);
    const h = Math.max(360, bottom - top);
    this.box = { x: (left + right - w) / 2, y: (top + bottom - h) / 2, w, h };
    this.apply();
  }

  shows(x, y) {
    const { x: left, y: top, w, h } = this.box;
    return x >= left && x <= left + w && y >= top && y <= top + h;
  }

  // Bring (x, y) to the middle, at the current zoom.
  centreOn(x, y) {
    this.box = { ...this.box, x: x - this.box.w / 2, y: y - this.box.h / 2 };
    this.apply();
  }

  cancelDrag() {
    this.drag = null;
    this.canvas.classList.remove("panning");
  }
}
