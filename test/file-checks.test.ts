// What an uploaded file is, judged by its whole structure (src/kyc/file-checks.ts called directly on crafted bytes): the
// type from the content, the name's extension, a complete PNG, JPEG or PDF, and every resolution an image states.
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { checkFile } from "../src/kyc/file-checks.ts";
import { Problem } from "../src/lib/problem.ts";
import {
  ascii,
  concat,
  hostileFiles,
  JPEG_SCAN,
  JPEG_SOI,
  jpeg,
  jpegSegment,
  PNG_IDAT,
  PNG_IEND,
  PNG_IHDR,
  PNG_SIGNATURE,
  pdf,
  pdfOf,
  pdfStream,
  physData,
  png,
  pngChunk,
  pngOf,
  ppm,
} from "./files.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

/** What checkFile makes of these bytes under this name: the type it answers, or the problem it throws. */
function judged(content: Uint8Array, filename: string): { mimeType: string } | { code: string; detail: string } {
  try {
    return { mimeType: checkFile(content, filename).mimeType };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { code: error.code, detail: error.message };
  }
}

const PDF = { mimeType: "application/pdf" };
const JPEG = { mimeType: "image/jpeg" };
const PNG = { mimeType: "image/png" };
const NOT_A_DOCUMENT = { code: "unsupported_media_type", detail: "The file is not a PDF, JPEG or PNG (judged by its content)" };

/** A 415 whose detail says what is wrong with the structure. */
const broken = (detail: string) => ({ code: "unsupported_media_type", detail });
/** A 400 whose detail names what the image states ("72x96 DPI", "72 DPI horizontally"...). */
const tooLow = (stated: string) => ({
  code: "resolution_too_low",
  detail: expect.stringContaining(`The image states ${stated}`),
});

/** `unit` repeated `count` times, copied in place (a concat of a million parts would be the slow part of the test). */
function repeated(unit: Uint8Array, count: number): Uint8Array {
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit, i * unit.length);
  return out;
}

const pngAt = (dpiX: number, dpiY: number) => png({ x: ppm(dpiX), y: ppm(dpiY), unit: 1 });

describe("the hostile test's files (issue 8, findings 4 and 5)", () => {
  for (const file of hostileFiles()) {
    it(`refuses ${file.name} (${file.status} ${file.code})`, () => {
      expect(judged(file.bytes, file.filename)).toMatchObject({ code: file.code });
    });
  }

  it("says which structure is incomplete", () => {
    const details = hostileFiles()
      .filter((file) => file.status === 415)
      .map((file) => judged(file.bytes, file.filename));
    expect(details).toEqual([
      broken("The PDF has no %%EOF marker in its last 1024 bytes"),
      broken("The JPEG ends before its start of scan"),
      broken("The PNG ends before its IEND chunk"),
      broken("The PDF has no %%EOF marker in its last 1024 bytes"),
    ]);
  });
});

describe("the type is the content's", () => {
  it("accepts a complete PDF, JPEG and PNG under an agreeing extension, in any case, and answers the type", () => {
    expect(checkFile(pdf(), "A.PDF")).toEqual({ mimeType: "application/pdf", extensions: [".pdf"] });
    expect(checkFile(jpeg({}), "photo.jpg")).toEqual({ mimeType: "image/jpeg", extensions: [".jpg", ".jpeg"] });
    expect(checkFile(png(), "scan.png")).toEqual({ mimeType: "image/png", extensions: [".png"] });
    expect(judged(jpeg({}), "photo.JpEg")).toEqual(JPEG);
    expect(judged(png(), "passport scan (1).Png")).toEqual(PNG);
    // The last of several dots counts; a leading dot does not start the extension when there is another.
    expect(judged(png(), "scan.2024.01.PNG")).toEqual(PNG);
    expect(judged(pdf(), ".hidden.pdf")).toEqual(PDF);
  });

  it("refuses other formats, empty input and near misses of each signature", () => {
    const others = [
      new Uint8Array(),
      ascii("GIF89a\x01\x00\x01\x00"),
      ascii("GIF87a"),
      bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00), // ZIP (and DOCX)
      concat(ascii("RIFF"), bytes(0, 0, 0, 0), ascii("WEBPVP8 ")),
      bytes(0x49, 0x49, 0x2a, 0x00), // TIFF
      ascii("just some text, not a document"),
      // PDF: the dash is part of the signature, the case matters, and it must come first.
      ascii("%PDF"),
      ascii("%PDF 1.4\n%%EOF"),
      ascii("%pdf-1.4\n%%EOF"),
      concat(ascii(" "), pdf()),
      concat(bytes(0xef, 0xbb, 0xbf), pdf()),
      // JPEG: SOI alone is not enough; a marker must follow.
      bytes(0xff, 0xd8),
      bytes(0xff, 0xd8, 0x00, 0xe0),
      bytes(0xff, 0xd9, 0xff),
      // PNG: all eight bytes, none missing.
      new Uint8Array(PNG_SIGNATURE.slice(0, 7)),
    ];
    for (const content of others) expect(judged(content, "file.pdf"), String(content.slice(0, 8))).toEqual(NOT_A_DOCUMENT);
  });

  it("refuses a PNG whose signature has any one byte wrong", () => {
    for (let i = 0; i < PNG_SIGNATURE.length; i++) {
      const image = png();
      image[i] = (image[i] ?? 0) ^ 0x20;
      expect(judged(image, "scan.png"), `byte ${i}`).toEqual(NOT_A_DOCUMENT);
    }
  });

  it("refuses a name whose extension disagrees with the content, naming both", () => {
    expect(judged(png(), "scan.pdf")).toEqual(
      broken(`The file's content is image/png but its name ends in ".pdf"; expected .png`),
    );
    expect(judged(jpeg({}), "photo.png")).toEqual(
      broken(`The file's content is image/jpeg but its name ends in ".png"; expected .jpg or .jpeg`),
    );
    expect(judged(pdf(), "doc.pdf.exe")).toMatchObject(broken(expect.stringContaining(`ends in ".exe"`)));
    for (const name of ["noextension", "", ".pdf", ".PDF"]) {
      expect(judged(pdf(), name), name).toMatchObject(broken(expect.stringContaining(`ends in "(no extension)"`)));
    }
  });
});

describe("a truncated or malformed structure is 415", () => {
  it("refuses every proper prefix of a complete PNG, JPEG and PDF", () => {
    const image = png({ x: ppm(300), y: ppm(300), unit: 1 });
    const photo = jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 300, y: 300 } });
    const document = pdf();
    // A PDF is whole once its %%EOF is: only the final line break may go.
    const eof = new TextDecoder().decode(document).lastIndexOf("%%EOF") + 5;
    for (const [content, name, whole] of [
      [image, "a.png", image.length],
      [photo, "a.jpg", photo.length],
      [document, "a.pdf", eof],
    ] as const) {
      expect(judged(content, name)).toHaveProperty("mimeType");
      for (let end = 0; end < whole; end++) {
        expect(judged(content.subarray(0, end), name), `${name} cut at ${end}`).toHaveProperty("code", "unsupported_media_type");
      }
    }
  });

  it("PNG: refuses a file without IEND, a chunk that runs past the end, and bytes after IEND", () => {
    expect(judged(pngOf(PNG_IHDR, PNG_IDAT), "a.png")).toEqual(broken("The PNG ends before its IEND chunk"));
    // A chunk that declares more data than the file holds, even though an IEND-like tail follows.
    const long = pngChunk("tEXt", ascii("Comment\0hello"));
    new DataView(long.buffer).setUint32(0, 1000);
    expect(judged(pngOf(PNG_IHDR, long, PNG_IDAT, PNG_IEND), "a.png")).toEqual(
      broken("The PNG's chunk at byte 33 runs past the end of the file"),
    );
    // A length of 2^32 - 1 does not wrap around.
    new DataView(long.buffer).setUint32(0, 0xffff_ffff);
    expect(judged(pngOf(PNG_IHDR, long, PNG_IDAT, PNG_IEND), "a.png")).toEqual(
      broken("The PNG's chunk at byte 33 runs past the end of the file"),
    );
    expect(judged(concat(png(), bytes(0)), "a.png")).toEqual(broken("The PNG continues for 1 byte after its IEND chunk"));
    expect(judged(concat(png(), ascii("MZ payload")), "a.png")).toEqual(
      broken("The PNG continues for 10 bytes after its IEND chunk"),
    );
  });

  it("JPEG: refuses a file without a scan, a segment that runs past the end, a bad length and a missing marker", () => {
    const jfif = jpegSegment(0xe0, concat(ascii("JFIF\0"), bytes(1, 2, 1, 1, 44, 1, 44, 0, 0)));
    const eoi = bytes(0xff, 0xd9);
    expect(judged(concat(JPEG_SOI, jfif, eoi), "a.jpg")).toEqual(
      broken("The JPEG has marker FF D9 at byte 20, before its start of scan"),
    );
    expect(judged(concat(JPEG_SOI, jfif), "a.jpg")).toEqual(broken("The JPEG ends before its start of scan"));
    expect(judged(concat(JPEG_SOI, jfif.subarray(0, 10)), "a.jpg")).toEqual(
      broken("The JPEG's segment at byte 2 runs past the end of the file"),
    );
    // Cut inside the two length bytes.
    expect(judged(concat(JPEG_SOI, bytes(0xff, 0xe0, 0x00)), "a.jpg")).toEqual(
      broken("The JPEG's segment at byte 2 runs past the end of the file"),
    );
    expect(judged(concat(JPEG_SOI, bytes(0xff, 0xfe, 0x00, 0x01), JPEG_SCAN), "a.jpg")).toEqual(
      broken("The JPEG's segment at byte 2 declares a length under 2"),
    );
    expect(judged(concat(JPEG_SOI, jfif, bytes(0x00), JPEG_SCAN), "a.jpg")).toEqual(
      broken("The JPEG has no marker at byte 20, where a segment should start"),
    );
    expect(judged(concat(JPEG_SOI, bytes(0xff, 0xd8), JPEG_SCAN), "a.jpg")).toEqual(
      broken("The JPEG has marker FF D8 at byte 2, before its start of scan"),
    );
  });

  it("JPEG: the file must end with EOI; only zero padding may follow it, as camera encoders write", () => {
    const photo = jpeg({ jfif: { units: 1, x: 300, y: 300 } });
    const noEoi = broken("The JPEG does not end with its end-of-image marker (FF D9)");
    expect(judged(photo.subarray(0, photo.length - 2), "a.jpg")).toEqual(noEoi);
    expect(judged(concat(photo, ascii("MZ payload")), "a.jpg")).toEqual(noEoi);
    expect(judged(concat(photo, bytes(0, 0, 0, 1)), "a.jpg")).toEqual(noEoi);
    expect(judged(concat(photo, bytes(0xff, 0xd9, 0x12)), "a.jpg")).toEqual(noEoi);
    expect(judged(concat(photo, new Uint8Array(3)), "a.jpg")).toEqual(JPEG);
    expect(judged(concat(photo, new Uint8Array(4096)), "a.jpg")).toEqual(JPEG);
    // The FF D9 must follow the start-of-scan segment, not sit inside it.
    const scanEndingInEoi = concat(JPEG_SOI, jpegSegment(0xda, bytes(1, 1, 0, 0, 0x3f, 0, 0xff, 0xd9)));
    expect(judged(scanEndingInEoi, "a.jpg")).toEqual(noEoi);
  });

  it("JPEG: accepts fill bytes before a marker and standalone markers before the scan", () => {
    const photo = concat(JPEG_SOI, bytes(0xff, 0xff, 0xff, 0x01, 0xff, 0xd0), JPEG_SCAN);
    expect(judged(photo, "a.jpg")).toEqual(JPEG);
  });

  it("PDF: needs %%EOF within the last 1024 bytes (the spec's room for trailing whitespace)", () => {
    const head = ascii("%PDF-1.7\n%%EOF");
    expect(judged(concat(head, new Uint8Array(1019).fill(0x20)), "a.pdf")).toEqual(PDF);
    expect(judged(concat(head, new Uint8Array(1020).fill(0x20)), "a.pdf")).toEqual(
      broken("The PDF has no %%EOF marker in its last 1024 bytes"),
    );
    expect(judged(ascii("%PDF-1.4\n%%EO"), "a.pdf")).toEqual(broken("The PDF has no %%EOF marker in its last 1024 bytes"));
    expect(judged(pdf(10 * 1024 * 1024), "big.pdf")).toEqual(PDF);
  });
});

describe("a PDF that acts rather than shows is 415 (issue 25): scripts, XFA forms, launch actions, embedded files", () => {
  const acts = (what: string, name: string, where = "") =>
    broken(
      `The PDF contains ${what} (the name /${name}${where}); documents that run scripts, start programs or carry files ` +
        "are refused: print the document to a new PDF, or scan it",
    );
  const JS = acts("JavaScript", "JS");
  const action = "2 0 obj << /Type /Action /S /JavaScript /JS (app.alert(1)) >> endobj";
  /** A FlateDecode object stream holding these objects (its offsets table left out: nothing here reads it). */
  const objectStream = (header: string, objects: string, dictionary = "/Type /ObjStm /N 1 /First 0 /Filter /FlateDecode") =>
    pdfStream(header, dictionary, deflateSync(ascii(objects)));

  it("refuses each active name in an object, naming it", () => {
    expect(judged(pdfOf(action), "a.pdf")).toEqual(acts("JavaScript", "JavaScript"));
    expect(judged(pdfOf("2 0 obj << /S /Rendition /JS 3 0 R >> endobj"), "a.pdf")).toEqual(JS);
    expect(judged(pdfOf("2 0 obj << /S /Launch /F (calc.exe) >> endobj"), "a.pdf")).toEqual(acts("a Launch action", "Launch"));
    expect(judged(pdfOf(pdfStream("2 0", "/Type /EmbeddedFile", ascii("MZ"))), "a.pdf")).toEqual(
      acts("an embedded file", "EmbeddedFile"),
    );
    expect(judged(pdfOf("2 0 obj << /Names << /EmbeddedFiles 3 0 R >> >> endobj"), "a.pdf")).toEqual(
      acts("an embedded file", "EmbeddedFiles"),
    );
    expect(judged(pdfOf("2 0 obj << /Type /Filespec /F (x.exe) /EF << /F 3 0 R >> >> endobj"), "a.pdf")).toEqual(
      acts("an embedded file", "EF"),
    );
  });

  it("decodes names written with #xx escapes, as readers do", () => {
    expect(judged(pdfOf("2 0 obj << /S /Launch#20 /J#53 (x) >> endobj"), "a.pdf")).toEqual(JS);
    expect(judged(pdfOf("2 0 obj << /#4a#61vaScript (x) >> endobj"), "a.pdf")).toEqual(acts("JavaScript", "JavaScript"));
    expect(judged(pdfOf("2 0 obj << /S /L#61unch >> endobj"), "a.pdf")).toEqual(acts("a Launch action", "Launch"));
    expect(judged(pdfOf("2 0 obj << /Type /Embedded#46ile >> endobj"), "a.pdf")).toEqual(
      acts("an embedded file", "EmbeddedFile"),
    );
  });

  it("finds an object wherever a reader may take it from: in a comment, after an open string, in another stream's data", () => {
    // A cross-reference table may point into what reads as a comment, a string or stream data from the file's start.
    expect(judged(pdfOf(`% ${action}`), "a.pdf")).toEqual(acts("JavaScript", "JavaScript"));
    expect(judged(pdfOf(`(unbalanced\n${action}`), "a.pdf")).toEqual(acts("JavaScript", "JavaScript"));
    expect(judged(pdfOf(pdfStream("3 0", "/Subtype /Image", ascii(`\n${action}\n`))), "a.pdf")).toEqual(
      acts("JavaScript", "JavaScript"),
    );
  });

  it("finds an object whatever comes between its number and its obj keyword: a comment, no space, a sign or a point", () => {
    // pdf.js's lexer skips a comment between tokens and ends a number at any other byte, and takes +3 and 3.0 for 3.
    const script = "<< /S /JavaScript /JS (app.alert(1)) >> endobj";
    for (const header of ["3 0%c\nobj", "3%c\r0 % more\n obj", "3 0obj", "+3 0 obj", "3.0 0 obj"]) {
      expect(judged(pdfOf(`${header} ${script}`), "a.pdf"), header).toEqual(acts("JavaScript", "JavaScript"));
    }
  });

  it("refuses an XFA form, whose XML carries scripts readers run", () => {
    expect(judged(pdfOf("2 0 obj << /Fields [] /XFA 3 0 R >> endobj"), "a.pdf")).toEqual(acts("an XFA form", "XFA"));
    expect(judged(pdfOf(objectStream("5 0", "<< /Fields [] /X#46A [(template) 6 0 R] >>")), "a.pdf")).toEqual(
      acts("an XFA form", "XFA", " in a compressed object stream"),
    );
  });

  it("reads the objects packed in object streams: compressed, far into the stream, without /Type, or stored as they are", () => {
    const inStream = acts("JavaScript", "JS", " in a compressed object stream");
    expect(judged(pdfOf(objectStream("5 0", "<< /S /JavaScript#20 /J#53 (x) >>")), "a.pdf")).toEqual(inStream);
    // Past the 16 KiB and 64 KiB pieces an inflater hands out: the name across their boundaries.
    const padding = "<< /Type /Page >> ".repeat(65536 / 18 - 1);
    expect(judged(pdfOf(objectStream("5 0", `${padding}    << /JS (x) >>`)), "a.pdf")).toEqual(inStream);
    expect(judged(pdfOf(objectStream("5 0", "<< /JS (x) >>", "/N 1 /First 0 /Filter /Fl")), "a.pdf")).toEqual(inStream);
    expect(judged(pdfOf(pdfStream("5 0", "/Type /ObjStm /N 1 /First 0", ascii("<< /JS (x) >>"))), "a.pdf")).toEqual(
      acts("JavaScript", "JS", " in an object stream"),
    );
  });

  it("refuses an object stream it cannot read: another encoding, parameters, broken or too large", () => {
    const cannot = (encoding: string) =>
      broken(
        `The PDF packs objects in a stream encoded as ${encoding}, which cannot be checked for scripts; print the ` +
          "document to a new PDF, or scan it",
      );
    const hex = ascii(Array.from(ascii("<< /JS (x) >>"), (b) => b.toString(16).padStart(2, "0")).join(""));
    expect(judged(pdfOf(pdfStream("5 0", "/Type /ObjStm /Filter /ASCIIHexDecode", hex)), "a.pdf")).toEqual(
      cannot("/ASCIIHexDecode"),
    );
    expect(
      judged(pdfOf(objectStream("5 0", "<< >>", "/Type /ObjStm /Filter /FlateDecode /DecodeParms << /Predictor 12 >>")), "a.pdf"),
    ).toEqual(cannot("/FlateDecode with parameters"));
    expect(judged(pdfOf(pdfStream("5 0", "/Type /ObjStm /Filter /FlateDecode", ascii("not deflated"))), "a.pdf")).toEqual(
      broken(
        "The PDF has an object stream that cannot be inflated (encrypted, or broken), so it cannot be checked for scripts; " +
          "print the document to a new PDF, or scan it",
      ),
    );
    // The filter named by another object ("6 0 obj /FlateDecode endobj"): the bytes would be judged still compressed.
    const byReference = broken(
      "The PDF packs objects in a stream whose filter is given by reference to another object, which cannot be checked " +
        "for scripts; print the document to a new PDF, or scan it",
    );
    for (const filter of ["/Filter 6 0 R", "/Filter [6 0 R]", "/Filter [/FlateDecode 6 0 R]", "/F 6 0 R", "/Filter %c\n6 0 R"]) {
      const packed = objectStream("5 0", "<< /JS (x) >>", `/Type /ObjStm /N 1 /First 0 ${filter}`);
      expect(judged(pdfOf(packed, "6 0 obj /FlateDecode endobj"), "a.pdf"), filter).toEqual(byReference);
    }
    expect(judged(pdfOf(objectStream("5 0", "<< >>", "/Type /ObjStm /Filter /FlateDecode /DecodeParms 7 0 R")), "a.pdf")).toEqual(
      cannot("/FlateDecode with parameters"),
    );
    const bomb = pdfStream("5 0", "/Type /ObjStm /Filter /FlateDecode", deflateSync(new Uint8Array(17 * 1024 * 1024)));
    expect(judged(pdfOf(bomb), "a.pdf")).toEqual(
      broken(`The PDF's object streams inflate to more than ${16 * 1024 * 1024} bytes, too much to check for scripts`),
    );
  });

  it("refuses objects that overlap endlessly (each header in the string of the one before), in linear time", () => {
    const nested = ascii("1 0 obj (".repeat((1024 * 1024) / 9));
    expect(judged(concat(ascii("%PDF-1.7\n"), nested, ascii("\n%%EOF\n")), "a.pdf")).toEqual(
      broken("The PDF's objects overlap too much to be checked for scripts"),
    );
  });

  it("accepts what only looks like them: names in strings and comments, longer names, bytes in an image's data", () => {
    expect(judged(pdfOf("2 0 obj << /Title (/JavaScript /Launch) /Subject <2F4A53> >> endobj"), "a.pdf")).toEqual(PDF);
    expect(judged(pdfOf("2 0 obj << /JSON 1 /JSX 2 /Launcher 3 /EFX 4 >> % /JS\nendobj"), "a.pdf")).toEqual(PDF);
    expect(judged(pdfOf("% no object here: /JavaScript /Launch"), "a.pdf")).toEqual(PDF);
    const image = concat(new Uint8Array([0xff, 0xd8]), ascii("/JS /EF /Launch"), new Uint8Array([0xff, 0xd9]));
    expect(judged(pdfOf(pdfStream("3 0", "/Type /XObject /Subtype /Image /Filter /DCTDecode", image)), "a.pdf")).toEqual(PDF);
    expect(judged(pdfOf(objectStream("5 0", "<< /Type /Page /Parent 2 0 R >> << /Title (a) >>")), "a.pdf")).toEqual(PDF);
    // References beside a filter named in place: the length, the stream it extends.
    const dictionary = "/Type /ObjStm /N 1 /First 0 /Filter /FlateDecode /Extends 7 0 R /Length 8 0 R";
    expect(judged(pdfOf(objectStream("5 0", "<< /Type /Page >>", dictionary)), "a.pdf")).toEqual(PDF);
    expect(judged(pdfOf("2 0 obj << /Title (the obj in a title) /Author (obj) >> endobj"), "a.pdf")).toEqual(PDF);
  });
});

describe("the order of the rules", () => {
  it("judges the extension before the structure, and the structure before the resolution", () => {
    expect(judged(ascii("%PDF-"), "a.png")).toMatchObject(broken(expect.stringContaining(`ends in ".png"`)));
    const lowPhys = pngChunk("pHYs", physData({ x: ppm(72), y: ppm(72), unit: 1 }));
    expect(judged(pngOf(PNG_IHDR, lowPhys, PNG_IDAT), "a.png")).toEqual(broken("The PNG ends before its IEND chunk"));
    const lowPhoto = jpeg({ jfif: { units: 1, x: 72, y: 72 } });
    expect(judged(lowPhoto.subarray(0, lowPhoto.length - 2), "a.jpg")).toEqual(
      broken("The JPEG does not end with its end-of-image marker (FF D9)"),
    );
  });
});

describe("resolution: PNG pHYs, wherever it is before the image data", () => {
  it("converts pixels per metre to dots per inch, judging each axis, rounded to the nearest", () => {
    expect(judged(pngAt(300, 300), "a.png")).toEqual(PNG);
    expect(judged(png({ x: 11_811, y: 11_811, unit: 1 }), "a.png")).toEqual(PNG);
    expect(judged(pngAt(600, 1200), "a.png")).toEqual(PNG);
    expect(judged(pngAt(600, 72), "a.png")).toEqual(tooLow("600x72 DPI"));
    expect(judged(png({ x: 2835, y: 3780, unit: 1 }), "a.png")).toEqual(tooLow("72x96 DPI"));
    // 11,800 pixels per metre is 299.72 DPI and 11,790 is 299.466: rounded, neither truncated nor raised.
    expect(judged(png({ x: 11_800, y: 11_800, unit: 1 }), "a.png")).toEqual(PNG);
    expect(judged(png({ x: 11_800, y: 11_790, unit: 1 }), "a.png")).toEqual(tooLow("300x299 DPI"));
  });

  it("accepts unit 0 (an aspect ratio only) and an image without pHYs", () => {
    expect(judged(png({ x: 2835, y: 2835, unit: 0 }), "a.png")).toEqual(PNG);
    expect(judged(png(), "a.png")).toEqual(PNG);
  });

  it("finds pHYs after other chunks before the image data, and ignores one after it", () => {
    const text = pngChunk("tEXt", ascii("Comment\0scanned at the front desk"));
    const phys = pngChunk("pHYs", physData({ x: ppm(72), y: ppm(150), unit: 1 }));
    expect(judged(pngOf(PNG_IHDR, text, phys, PNG_IDAT, PNG_IEND), "a.png")).toEqual(tooLow("72x150 DPI"));
    expect(judged(pngOf(PNG_IHDR, PNG_IDAT, phys, PNG_IEND), "a.png")).toEqual(PNG);
  });

  it("reads pHYs after 10 MiB of tiny chunks, in linear time", () => {
    // 873,813 empty private chunks ("vnPd": ancillary, private, safe to copy) of 12 bytes each.
    const tiny = repeated(pngChunk("vnPd", new Uint8Array()), Math.floor((10 * 1024 * 1024) / 12));
    const at = (dpi: number) => pngChunk("pHYs", physData({ x: ppm(dpi), y: ppm(dpi), unit: 1 }));
    expect(judged(pngOf(PNG_IHDR, tiny, at(300), PNG_IDAT, PNG_IEND), "a.png")).toEqual(PNG);
    expect(judged(pngOf(PNG_IHDR, tiny, at(72), PNG_IDAT, PNG_IEND), "a.png")).toEqual(tooLow("72x72 DPI"));
  });
});

describe("resolution: JPEG JFIF density", () => {
  it("takes units 1 as dots per inch and converts units 2, dots per centimetre", () => {
    expect(judged(jpeg({ jfif: { units: 1, x: 300, y: 300 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ jfif: { units: 1, x: 1200, y: 300 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ jfif: { units: 1, x: 600, y: 72 } }), "a.jpg")).toEqual(tooLow("600x72 DPI"));
    expect(judged(jpeg({ jfif: { units: 2, x: 118, y: 118 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ jfif: { units: 2, x: 28, y: 59 } }), "a.jpg")).toEqual(tooLow("71x150 DPI"));
  });

  it("accepts units 0 (an aspect ratio only)", () => {
    expect(judged(jpeg({ jfif: { units: 0, x: 72, y: 72 } }), "a.jpg")).toEqual(JPEG);
  });

  it("reads a JFIF after 10 MiB of tiny segments and fill bytes, in linear time", () => {
    const tiny = repeated(bytes(0xff, 0xfe, 0x00, 0x02), (10 * 1024 * 1024) / 4); // empty comments
    const fill = new Uint8Array(1024 * 1024).fill(0xff);
    const jfif = (dpi: number) =>
      jpegSegment(0xe0, concat(ascii("JFIF\0"), bytes(1, 2, 1, dpi >> 8, dpi & 0xff, dpi >> 8, dpi & 0xff, 0, 0)));
    expect(judged(concat(JPEG_SOI, tiny, fill, jfif(300), JPEG_SCAN), "a.jpg")).toEqual(JPEG);
    expect(judged(concat(JPEG_SOI, tiny, fill, jfif(72), JPEG_SCAN), "a.jpg")).toEqual(tooLow("72x72 DPI"));
  });
});

describe("resolution: JPEG EXIF XResolution and YResolution", () => {
  for (const order of ["MM", "II"] as const) {
    describe(`byte order ${order}`, () => {
      it("takes ResolutionUnit 2 as inches, and inches when no unit is given", () => {
        expect(judged(jpeg({ exif: { x: 300, y: 300, unit: 2, order } }), "a.jpg")).toEqual(JPEG);
        expect(judged(jpeg({ exif: { x: 300, y: 150, unit: 2, order } }), "a.jpg")).toEqual(tooLow("300x150 DPI"));
        expect(judged(jpeg({ exif: { x: 72, y: 96, order } }), "a.jpg")).toEqual(tooLow("72x96 DPI"));
        // Values past 16 bits: the whole 32-bit numerator is read.
        expect(judged(jpeg({ exif: { x: 70_000, y: 299, unit: 2, order } }), "a.jpg")).toEqual(tooLow("70000x299 DPI"));
      });

      it("divides each rational by its denominator", () => {
        expect(judged(jpeg({ exif: { x: 600, y: 1200, unit: 2, order, denominator: 2 } }), "a.jpg")).toEqual(JPEG);
        expect(judged(jpeg({ exif: { x: 600, y: 590, unit: 2, order, denominator: 2 } }), "a.jpg")).toEqual(
          tooLow("300x295 DPI"),
        );
      });

      it("converts ResolutionUnit 3, centimetres, to inches", () => {
        expect(judged(jpeg({ exif: { x: 118, y: 118, unit: 3, order } }), "a.jpg")).toEqual(JPEG);
        expect(judged(jpeg({ exif: { x: 100, y: 40, unit: 3, order } }), "a.jpg")).toEqual(tooLow("254x102 DPI"));
        expect(judged(jpeg({ exif: { x: 240, y: 110, unit: 3, order } }), "a.jpg")).toEqual(tooLow("610x279 DPI"));
      });

      it("accepts ResolutionUnit 1 (no absolute unit)", () => {
        expect(judged(jpeg({ exif: { x: 72, y: 72, unit: 1, order } }), "a.jpg")).toEqual(JPEG);
        expect(judged(jpeg({ exif: { x: 72, unit: 1, order } }), "a.jpg")).toEqual(JPEG);
      });

      it("judges an EXIF with one axis on that axis, either way", () => {
        expect(judged(jpeg({ exif: { x: 72, order } }), "a.jpg")).toEqual(
          tooLow("72 DPI horizontally and no vertical resolution"),
        );
        expect(judged(jpeg({ exif: { y: 72, order } }), "a.jpg")).toEqual(
          tooLow("72 DPI vertically and no horizontal resolution"),
        );
        expect(judged(jpeg({ exif: { x: 100, unit: 3, order } }), "a.jpg")).toEqual(tooLow("254 DPI horizontally"));
        expect(judged(jpeg({ exif: { x: 300, order } }), "a.jpg")).toEqual(JPEG);
        expect(judged(jpeg({ exif: { y: 300, unit: 2, order } }), "a.jpg")).toEqual(JPEG);
      });
    });
  }

  it("reads no further than each EXIF holds, whatever entry count it claims, in linear time", () => {
    // 20-byte APP1 segments whose IFD0 claims 65,535 entries and holds none: read as claimed, 10 MiB of them would
    // take some 34 billion reads.
    const tiff = concat(ascii("MM"), bytes(0, 42, 0, 0, 0, 8), bytes(0xff, 0xff));
    const claims = repeated(jpegSegment(0xe1, concat(ascii("Exif\0\0"), tiff)), (10 * 1024 * 1024) / 20);
    expect(judged(concat(JPEG_SOI, claims, JPEG_SCAN), "a.jpg")).toEqual(JPEG);
  });

  it("accepts an EXIF that states no resolution at all", () => {
    expect(judged(jpeg({ exif: { unit: 2 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ exif: {} }), "a.jpg")).toEqual(JPEG);
  });
});

describe("resolution: what an image states as a whole", () => {
  it("judges both the JFIF and the EXIF resolution when a JPEG has both", () => {
    expect(judged(jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 600, y: 600 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 96, y: 96 } }), "a.jpg")).toEqual(tooLow("96x96 DPI"));
    expect(judged(jpeg({ jfif: { units: 1, x: 96, y: 96 }, exif: { x: 300, y: 300 } }), "a.jpg")).toEqual(tooLow("96x96 DPI"));
    expect(judged(jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 72, y: 72, unit: 1 } }), "a.jpg")).toEqual(JPEG);
    expect(judged(jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 600, y: 600, order: "II" } }), "a.jpg")).toEqual(JPEG);
  });

  it("accepts an image that states none, and finds none in a PDF whose bytes would read as a pHYs chunk", () => {
    expect(judged(jpeg({}), "a.jpg")).toEqual(JPEG);
    expect(judged(png(), "a.png")).toEqual(PNG);
    const lookalike = concat(
      ascii("%PDF-1.4"),
      pngChunk("pHYs", physData({ x: ppm(72), y: ppm(72), unit: 1 })),
      ascii("\n%%EOF"),
    );
    expect(judged(lookalike, "a.pdf")).toEqual(PDF);
  });
});
