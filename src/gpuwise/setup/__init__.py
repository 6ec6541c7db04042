"""`gpuwise setup`: a pinned, working GPU environment for this machine or a described one.

Pure core: :mod:`target` (who we build for), :mod:`resolve` (what to pin, or why not),
:mod:`render_docker` / :mod:`render_files` (the text of each file). The CLI writes the files.
"""
