// The ES module entry: the CommonJS build's exports, so that ESM and
// CommonJS hosts share one module instance (one ResponseError class for
// instanceof, one set of helpers) and one set of declarations.
export * from "./index.js";
