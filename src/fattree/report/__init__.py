"""Reports: drawings, plots, HTML reports and the reproduction of the papers' figures."""
