// A small force-directed layout for the entity graph, computed once and the same every
// time for the same graph: seeded starting positions on a spiral, a fixed number of
// rounds, no animation. Nodes push each other apart, edges pull their ends together, a
// weak pull to the middle keeps separate clusters in view. The centre node, if any,
// stays at (0, 0).

const ROUNDS = 300;
const SPACING = 90; // the distance two linked nodes settle around, in drawing units
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

// mulberry32: a tiny seeded generator, so the jitter is the same on every load.
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// nodes: [{ id }], edges: [{ source_id, target_id, weight }]; returns Map id -> {x, y}.
export function layout(nodes, edges, pinnedId = null) {
  const random = seeded(nodes.length * 7919 + edges.length);
  const pos = nodes.map((node, i) => {
    if (node.id === pinnedId) return { x: 0, y: 0 };
    const radius = SPACING * 0.6 * Math.sqrt(i + 1);
    const angle = i * GOLDEN_ANGLE;
    return {
      x: radius * Math.cos(angle) + (random() - 0.5) * 4,
      y: radius * Math.sin(angle) + (random() - 0.5) * 4,
    };
  });
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const links = edges
    .filter((e) => index.has(e.source_id) && index.has(e.target_id))
    .map((e) => [index.get(e.source_id), index.get(e.target_id),
      1 + Math.log(Math.max(1, e.weight))]);
  const pinned = pinnedId === null ? -1 : (index.get(pinnedId) ?? -1);
  const n = nodes.length;
  const k2 = SPACING * SPACING;
  // The pull to the middle, per drawing unit away from it: stronger with more nodes, so
  // a big graph stays about as dense as a small one.
  const gravity = Math.max(0.3, 0.03 * n);
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  let heat = SPACING * 2;
  const cooling = heat / (ROUNDS + 1);
  for (let round = 0; round < ROUNDS; round += 1) {
    dx.fill(0);
    dy.fill(0);
    for (let i = 0; i < n; i += 1) {
      for (let j = i + 1; j < n; j += 1) {
        let x = pos[i].x - pos[j].x;
        let y = pos[i].y - pos[j].y;
        let d2 = x * x + y * y;
        if (d2 < 0.01) {
          x = random() - 0.5;
          y = random() - 0.5;
          d2 = 0.01;
        }
        const push = k2 / d2; // k² / d, along the unit vector (x, y) / d
        dx[i] += x * push;
        dy[i] += y * push;
        dx[j] -= x * push;
        dy[j] -= y * push;
      }
    }
    for (const [a, b, strength] of links) {
      const x = pos[a].x - pos[b].x;
      const y = pos[a].y - pos[b].y;
      const d = Math.sqrt(x * x + y * y) || 0.1;
      const pull = (d / SPACING) * strength; // d² / k, along the unit vector
      dx[a] -= x * pull;
      dy[a] -= y * pull;
      dx[b] += x * pull;
      dy[b] += y * pull;
    }
    for (let i = 0; i < n; i += 1) {
      if (i === pinned) continue;
      dx[i] -= pos[i].x * gravity;
      dy[i] -= pos[i].y * gravity;
      const d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]);
      if (d > 0) {
        const step = Math.min(d, heat);
        pos[i].x += (dx[i] / d) * step;
        pos[i].y += (dy[i] / d) * step;
      }
    }
    heat -= cooling;
  }
  return new Map(nodes.map((node, i) => [node.id, pos[i]]));
}
