// A key pair standing in for Cloudflare Access's where no Access stands in front: npm start's (its public half in
// .dev.vars as ACCESS_JWKS) and the tests' (vitest.config.ts). RS256, as Access signs, with a key id.
import { generateKeyPairSync, randomUUID } from "node:crypto";

type Jwk = Record<string, unknown> & { kid: string; alg: "RS256" };

export interface AccessKeyPair {
  publicJwk: Jwk;
  privateJwk: Jwk;
}

export function accessKeyPair(): AccessKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomUUID();
  return {
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" },
    privateJwk: { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256" },
  };
}
