// weft::execution::adaptive_chunk_size (issue #6): in progress.
