"""The vector side: embedders, FAISS indexes by size, the cold-process query encoder."""
