*ó"	video/mp4*
image/jpeg