/** A label the simulated detector knows, and how often it appears in a frame (0..1). */
export type LabelSpec = { label: string; prevalence: number };

/** The labels of the simulated scene: an office kitchen with people, cups and a dog. */
export const LABELS: readonly LabelSpec[] = Object.freeze([
  { label: 'person', prevalence: 0.5 },
  { label: 'cup', prevalence: 0.35 },
  { label: 'bottle', prevalence: 0.25 },
  { label: 'chair', prevalence: 0.3 },
  { label: 'laptop', prevalence: 0.2 },
  { label: 'dog', prevalence: 0.1 },
]);

/** Frame size of the simulated camera, in pixels. */
export const FRAME_WIDTH = 640;
export const FRAME_HEIGHT = 480;

/** A bounding box in pixels: top-left corner, width and height. */
export type BoundingBox = { x: number; y: number; width: number; height: number };

/** One detection in one frame. */
export type Detection = { label: string; confidence: number; bbox: BoundingBox; frame: number };

/** mulberry32: a small, fast, seedable PRNG returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A simulated object detector: each frame, every label appears with its prevalence, with a
 * confidence between 0.35 and 0.99 and a random box. The same seed gives the same detections.
 */
export class SimulatedDetector {
  private readonly random: () => number;
  private frame = 0;

  constructor(
    seed: number,
    private readonly labels: readonly LabelSpec[] = LABELS,
  ) {
    this.random = seededRandom(seed);
  }

  /** The detections of the next frame (frames are numbered from 1). */
  nextFrame(): Detection[] {
    this.frame += 1;
    const detections: Detection[] = [];
    for (const { label, prevalence } of this.labels) {
      if (this.random() >= prevalence) continue;
      const width = Math.round(40 + this.random() * 200);
      const height = Math.round(40 + this.random() * 200);
      detections.push({
        label,
        confidence: Math.round((0.35 + this.random() * 0.64) * 100) / 100,
        bbox: {
          x: Math.round(this.random() * (FRAME_WIDTH - width)),
          y: Math.round(this.random() * (FRAME_HEIGHT - height)),
          width,
          height,
        },
        frame: this.frame,
      });
    }
    return detections;
  }
}
