// The long-term store's errors.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * A long-term store call was given something it cannot take: an empty namespace or one with
 * a label containing `.`, a value that is not a JSON object, a bad TTL, filter or page.
 */
export class InvalidStoreRequestError extends StateweaverError {
  static {
    brandError(InvalidStoreRequestError);
  }

  constructor(message: string) {
    super("INVALID_STORE_REQUEST", message);
  }
}

/**
 * Semantic search's embedder failed or answered wrongly: the embed function threw, or it
 * gave back a different number of vectors than texts, or vectors whose length is not the
 * index's `dims`. Nothing was stored; the message says which and what to check.
 */
export class StoreEmbeddingError extends StateweaverError {
  static {
    brandError(StoreEmbeddingError);
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super("STORE_EMBEDDING", message, options);
  }
}
