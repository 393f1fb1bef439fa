"""Sweeps: study files, experiment kinds, the Parquet results store and Dask execution.

Import the pieces from their modules (``fattree.sweep.study``, ``.store``,
``.engine``, ``.tasks``); Dask is imported only when a sweep runs.
"""
