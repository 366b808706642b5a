// What an uploaded file is, judged by its bytes (src/kyc/file-checks.ts called directly): the type sniffed from the
// signature, the name's extension, and every resolution an image states, in dots per inch.
import { describe, expect, it } from "vitest";
import { extensionOf, type SniffedType, sniffType, statedResolutions } from "../src/kyc/file-checks.ts";
import {
  ascii,
  concat,
  jpeg,
  PNG_IDAT,
  PNG_IEND,
  PNG_IHDR,
  PNG_SIGNATURE,
  pdf,
  physData,
  png,
  pngChunk,
  pngOf,
  ppm,
} from "./files.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

/** The type sniffed from these bytes, failing the test when there is none. */
function sniffed(content: Uint8Array): SniffedType {
  const type = sniffType(content);
  if (!type) throw new Error("no type sniffed");
  return type;
}

/** What the image states, the type sniffed from the same bytes (as the upload does). */
const resolutionsOf = (content: Uint8Array) => statedResolutions(sniffed(content), content);

describe("sniffType", () => {
  it("recognises PDF, JPEG and PNG by their signatures, with the extensions each may carry", () => {
    expect(sniffType(pdf())).toEqual({ mimeType: "application/pdf", extensions: [".pdf"] });
    expect(sniffType(jpeg({}))).toEqual({ mimeType: "image/jpeg", extensions: [".jpg", ".jpeg"] });
    expect(sniffType(png())).toEqual({ mimeType: "image/png", extensions: [".png"] });
  });

  it("needs only the signature: the bare %PDF-, FF D8 FF and the eight PNG bytes are enough", () => {
    expect(sniffType(ascii("%PDF-"))?.mimeType).toBe("application/pdf");
    expect(sniffType(bytes(0xff, 0xd8, 0xff))?.mimeType).toBe("image/jpeg");
    expect(sniffType(bytes(0xff, 0xd8, 0xff, 0xe1))?.mimeType).toBe("image/jpeg");
    expect(sniffType(new Uint8Array(PNG_SIGNATURE))?.mimeType).toBe("image/png");
  });

  it("refuses near misses of each signature", () => {
    // PDF: the dash is part of it, the case matters, and it must come first.
    expect(sniffType(ascii("%PDF"))).toBeUndefined();
    expect(sniffType(ascii("%PDF 1.4"))).toBeUndefined();
    expect(sniffType(ascii("%pdf-1.4"))).toBeUndefined();
    expect(sniffType(ascii(" %PDF-1.4"))).toBeUndefined();
    expect(sniffType(concat(bytes(0xef, 0xbb, 0xbf), pdf()))).toBeUndefined();
    // JPEG: SOI alone is not enough; a marker must follow.
    expect(sniffType(bytes(0xff, 0xd8))).toBeUndefined();
    expect(sniffType(bytes(0xff, 0xd8, 0x00, 0xe0))).toBeUndefined();
    expect(sniffType(bytes(0xff, 0xd9, 0xff))).toBeUndefined();
    // PNG: all eight bytes, none missing.
    expect(sniffType(new Uint8Array(PNG_SIGNATURE.slice(0, 7)))).toBeUndefined();
  });

  it("refuses a PNG whose signature has any one byte wrong", () => {
    const image = png();
    for (let i = 0; i < PNG_SIGNATURE.length; i++) {
      const broken = image.slice();
      broken[i] = (broken[i] ?? 0) ^ 0x20;
      expect(sniffType(broken), `byte ${i}`).toBeUndefined();
    }
  });

  it("refuses other formats and empty input", () => {
    expect(sniffType(new Uint8Array())).toBeUndefined();
    expect(sniffType(ascii("GIF89a\x01\x00\x01\x00"))).toBeUndefined();
    expect(sniffType(ascii("GIF87a"))).toBeUndefined();
    expect(sniffType(bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00))).toBeUndefined(); // ZIP (and DOCX)
    expect(sniffType(concat(ascii("RIFF"), bytes(0, 0, 0, 0), ascii("WEBPVP8 ")))).toBeUndefined();
    expect(sniffType(bytes(0x49, 0x49, 0x2a, 0x00))).toBeUndefined(); // TIFF
    expect(sniffType(ascii("just some text, not a document"))).toBeUndefined();
  });
});

describe("extensionOf", () => {
  it("gives the last extension with its dot, lowercased", () => {
    expect(extensionOf("scan.pdf")).toBe(".pdf");
    expect(extensionOf("A.PDF")).toBe(".pdf");
    expect(extensionOf("photo.JpEg")).toBe(".jpeg");
    expect(extensionOf("passport scan (1).Png")).toBe(".png");
  });

  it("gives the last of several dots", () => {
    expect(extensionOf("doc.pdf.exe")).toBe(".exe");
    expect(extensionOf("archive.tar.gz")).toBe(".gz");
    expect(extensionOf("scan.2024.01.PNG")).toBe(".png");
    expect(extensionOf(".hidden.pdf")).toBe(".pdf");
  });

  it("gives nothing for a name without a dot, or whose only dot leads it", () => {
    expect(extensionOf("noextension")).toBe("");
    expect(extensionOf("")).toBe("");
    expect(extensionOf(".pdf")).toBe("");
    expect(extensionOf(".PNG")).toBe("");
  });
});

describe("statedResolutions: PNG pHYs", () => {
  it("converts pixels per metre to dots per inch, each axis on its own", () => {
    expect(resolutionsOf(png({ x: ppm(300), y: ppm(300), unit: 1 }))).toEqual([{ x: 300, y: 300 }]);
    expect(resolutionsOf(png({ x: 11_811, y: 11_811, unit: 1 }))).toEqual([{ x: 300, y: 300 }]);
    expect(resolutionsOf(png({ x: ppm(600), y: ppm(72), unit: 1 }))).toEqual([{ x: 600, y: 72 }]);
    expect(resolutionsOf(png({ x: 2835, y: 3780, unit: 1 }))).toEqual([{ x: 72, y: 96 }]);
    // 11,800 pixels per metre is 299.72 DPI and 11,790 is 299.466: rounded to the nearest, neither truncated nor raised.
    expect(resolutionsOf(png({ x: 11_800, y: 11_790, unit: 1 }))).toEqual([{ x: 300, y: 299 }]);
  });

  it("states nothing for unit 0 (an aspect ratio only), nor for an image without pHYs", () => {
    expect(resolutionsOf(png({ x: 2835, y: 2835, unit: 0 }))).toEqual([]);
    expect(resolutionsOf(png({ x: ppm(72), y: ppm(72), unit: 0 }))).toEqual([]);
    expect(resolutionsOf(png())).toEqual([]);
  });

  it("finds pHYs after other chunks before the image data, and ignores one after it", () => {
    const text = pngChunk("tEXt", ascii("Comment\0scanned at the front desk"));
    const phys = pngChunk("pHYs", physData({ x: ppm(72), y: ppm(150), unit: 1 }));
    expect(resolutionsOf(pngOf(PNG_IHDR, text, phys, PNG_IDAT, PNG_IEND))).toEqual([{ x: 72, y: 150 }]);
    expect(resolutionsOf(pngOf(PNG_IHDR, PNG_IDAT, phys, PNG_IEND))).toEqual([]);
  });
});

describe("statedResolutions: JPEG JFIF density", () => {
  it("takes units 1 as dots per inch", () => {
    expect(resolutionsOf(jpeg({ jfif: { units: 1, x: 300, y: 300 } }))).toEqual([{ x: 300, y: 300 }]);
    expect(resolutionsOf(jpeg({ jfif: { units: 1, x: 600, y: 72 } }))).toEqual([{ x: 600, y: 72 }]);
    expect(resolutionsOf(jpeg({ jfif: { units: 1, x: 1200, y: 300 } }))).toEqual([{ x: 1200, y: 300 }]);
  });

  it("converts units 2, dots per centimetre, to dots per inch", () => {
    expect(resolutionsOf(jpeg({ jfif: { units: 2, x: 118, y: 118 } }))).toEqual([{ x: 300, y: 300 }]);
    expect(resolutionsOf(jpeg({ jfif: { units: 2, x: 28, y: 59 } }))).toEqual([{ x: 71, y: 150 }]);
  });

  it("states nothing for units 0 (an aspect ratio only)", () => {
    expect(resolutionsOf(jpeg({ jfif: { units: 0, x: 1, y: 1 } }))).toEqual([]);
    expect(resolutionsOf(jpeg({ jfif: { units: 0, x: 72, y: 72 } }))).toEqual([]);
  });
});

describe("statedResolutions: JPEG EXIF XResolution and YResolution", () => {
  for (const order of ["MM", "II"] as const) {
    describe(`byte order ${order}`, () => {
      it("takes ResolutionUnit 2 as inches, and inches when no unit is given", () => {
        expect(resolutionsOf(jpeg({ exif: { x: 300, y: 150, unit: 2, order } }))).toEqual([{ x: 300, y: 150 }]);
        expect(resolutionsOf(jpeg({ exif: { x: 72, y: 96, order } }))).toEqual([{ x: 72, y: 96 }]);
        // Values past 16 and 8 bits: the whole 32-bit numerator is read.
        expect(resolutionsOf(jpeg({ exif: { x: 70_000, y: 300, unit: 2, order } }))).toEqual([{ x: 70_000, y: 300 }]);
      });

      it("divides each rational by its denominator", () => {
        expect(resolutionsOf(jpeg({ exif: { x: 600, y: 1200, unit: 2, order, denominator: 2 } }))).toEqual([{ x: 300, y: 600 }]);
      });

      it("converts ResolutionUnit 3, centimetres, to inches", () => {
        expect(resolutionsOf(jpeg({ exif: { x: 118, y: 118, unit: 3, order } }))).toEqual([{ x: 300, y: 300 }]);
        expect(resolutionsOf(jpeg({ exif: { x: 100, y: 40, unit: 3, order } }))).toEqual([{ x: 254, y: 102 }]);
      });

      it("states nothing for ResolutionUnit 1 (no absolute unit)", () => {
        expect(resolutionsOf(jpeg({ exif: { x: 72, y: 72, unit: 1, order } }))).toEqual([]);
      });
    });
  }

  it("reads the same resolution whatever the byte order", () => {
    const big = resolutionsOf(jpeg({ exif: { x: 240, y: 180, unit: 3, order: "MM" } }));
    const little = resolutionsOf(jpeg({ exif: { x: 240, y: 180, unit: 3, order: "II" } }));
    expect(big).toEqual([{ x: 610, y: 457 }]);
    expect(little).toEqual(big);
  });
});

describe("statedResolutions: what an image states as a whole", () => {
  it("lists both the JFIF and the EXIF resolution when a JPEG has both, JFIF first", () => {
    expect(resolutionsOf(jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 96, y: 96 } }))).toEqual([
      { x: 300, y: 300 },
      { x: 96, y: 96 },
    ]);
    expect(resolutionsOf(jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 72, y: 72, unit: 1 } }))).toEqual([]);
    expect(resolutionsOf(jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 600, y: 600, order: "II" } }))).toEqual([
      { x: 600, y: 600 },
    ]);
  });

  it("gives no resolution for an image that states none, nor for a PDF", () => {
    expect(resolutionsOf(jpeg({}))).toEqual([]);
    expect(resolutionsOf(png())).toEqual([]);
    expect(resolutionsOf(pdf())).toEqual([]);
    // A PDF states nothing even when the bytes after its eight-byte header would read as a PNG pHYs chunk.
    const lookalike = concat(ascii("%PDF-1.4"), pngChunk("pHYs", physData({ x: ppm(72), y: ppm(72), unit: 1 })));
    expect(sniffed(lookalike).mimeType).toBe("application/pdf");
    expect(resolutionsOf(lookalike)).toEqual([]);
  });
});
