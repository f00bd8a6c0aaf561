#!/usr/bin/env bash
# Debian packages the test suite drives: Chromium (browser tests), poppler-utils (pdftotext reads
# exported PDFs) and LibreOffice Writer (opens exported DOCX files). Installs only what is missing.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v soffice >/dev/null 2>&1 || missing+=(libreoffice-writer-nogui)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "Missing system packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
  echo "Installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
